//! Memory planning: lifetimes, offsets at the liveness lower bound, and an independent checker.
