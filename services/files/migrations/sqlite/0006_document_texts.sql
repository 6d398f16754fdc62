-- The text of a PDF document, found by search (issue 25): read once after its
-- upload is stored, at most 1 MB; '' for other files and for a PDF without
-- readable text. NULL: a PDF stored before texts were read, which the
-- service's start reads and indexes. Only added: older readers ignore it.
ALTER TABLE files ADD COLUMN extracted_text TEXT;
