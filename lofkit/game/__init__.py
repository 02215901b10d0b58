"""The game around the geometry: unit profiles and army lists (`army`), the list's legality (`listcheck`), the
Tactical phase's order count and Loss of Lieutenant (`orders`), the turn's sequence (`turn`), what an order may
hold and when AROs are declared (`skills`, `reactions`), and the Initiative roll's odds (`initiative`). Plain
data and arithmetic: no geometry, except where AROs meet the table (`reactions`)."""
