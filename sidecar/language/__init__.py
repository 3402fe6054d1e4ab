"""A text's language and words: which language a note is in (`languages.py`), the letters read
as others before text is cut into words (`letters.py`), the same words with or without their
accents (`accents.py`), and the embedder that suits a vault's languages (`suggest.py`).

Read by the index (BM25's analyzers), search (queries cut as notes are), answers and models
(`embed_model = auto`); it imports none of them.
"""
