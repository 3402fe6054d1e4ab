"""One sentence of a note in each of five languages, for detection and analysis tests."""

GERMAN = "Die Anzahl der Wörter zeigt, wie lang eine Notiz ist und wie viele Zeichen sie hat."
FRENCH = "Le nombre de mots de la note est affiché dans la barre d'état, avec les caractères."
ENGLISH = "The word count shows how long a note is and how many characters it has."
DUTCH = "Het aantal woorden van de notitie staat in de statusbalk, met het aantal tekens."
SPANISH = "El número de palabras de la nota aparece en la barra de estado, con los caracteres."
