//! Tensor indices as the file stores them (`int32`) checked against the tensor table.

use flatbuffers::Vector;

use crate::error::{Error, Result};

/// A tensor index that must be present and in range. `context` is only built on failure.
pub(super) fn tensor(raw: i32, len: usize, context: impl FnOnce() -> String) -> Result<usize> {
    match usize::try_from(raw) {
        Ok(i) if i < len => Ok(i),
        _ => Err(Error::IndexOutOfRange {
            context: context(),
            index: i64::from(raw),
            len,
        }),
    }
}

/// A list of required tensor indices (graph inputs/outputs, op outputs, intermediates); an absent
/// list is empty. Errors name the list and position, e.g. "subgraph output 2".
pub(super) fn tensor_list(
    list: Option<Vector<'_, i32>>,
    len: usize,
    what: &str,
) -> Result<Vec<usize>> {
    list.into_iter()
        .flatten()
        .enumerate()
        .map(|(i, raw)| tensor(raw, len, || format!("{what} {i}")))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_checks() {
        assert_eq!(tensor(2, 3, String::new).ok(), Some(2));
        assert!(matches!(
            tensor(3, 3, || "x".into()),
            Err(Error::IndexOutOfRange {
                index: 3,
                len: 3,
                ..
            })
        ));
        assert!(matches!(
            tensor(-1, 3, || "x".into()),
            Err(Error::IndexOutOfRange { index: -1, .. })
        ));
        assert!(tensor(i32::MIN, usize::MAX, String::new).is_err());
    }
}
