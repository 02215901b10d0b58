"""The rules as queries over a World: measurement, LoF, cover, AROs, deployment, dispersion; frozen results."""
