"""Other formats in and out: photos, scans, Tabletop Simulator saves, glTF, and writing scene files."""
