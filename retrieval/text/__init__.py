"""Text shaping shared by indexing and answering: transcript speaker labels and the like."""
