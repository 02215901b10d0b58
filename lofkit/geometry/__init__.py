"""Scene -> World: placed terrain pieces and their convex parts, trooper volumes, support under a base."""
