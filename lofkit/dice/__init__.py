"""d20 rolls: success values, face-to-face distributions, roll specs, the odds of an attack."""
