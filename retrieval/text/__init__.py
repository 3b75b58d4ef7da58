"""Plain text functions at the bottom of the package, shared by indexing, search and the faces: cleaning user text
at the boundary (`clean`), keeping secrets out of messages and logs (`redact`), transcript speaker labels
(`speakers`) and making an extracted sentence readable (`readable`)."""
