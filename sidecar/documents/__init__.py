"""Documents kept in the vault beside the notes (PDF first; EPUB, DOCX, PPTX, HTML, text):
found by page where they lie, and processed into resource notes on request (docs/documents.md)."""
