//! Loading: bytes → verified FlatBuffer → [`Graph`](crate::ir::Graph).
