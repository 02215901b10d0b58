"""Other formats in and out: photos, scans, Tabletop Simulator saves and glTF, with one policy for what they write."""
