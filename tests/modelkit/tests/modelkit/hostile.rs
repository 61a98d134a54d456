use tinyaot_modelkit::hostile::*;

#[test]
fn names_are_unique_and_the_suite_is_large() {
    let cases = cases();
    let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len());
    assert!(cases.len() >= 100, "{} cases", cases.len());
}

#[test]
fn divergent_scales_diverge() {
    for k in 0..4 {
        let (a, b) = divergent_scales(k);
        assert_ne!(
            quantize_multiplier(f64::from(a / b)),
            quantize_multiplier(f64::from(a) / f64::from(b))
        );
    }
}
