// The do-nothing model's one case: input 42, output 42.
#[link_section = ".golden"]
static C0_I0: [u8; 1] = [42];
#[link_section = ".golden"]
static C0_O0: [u8; 1] = [42];

pub static CASES: &[Case] = &[Case {
    inputs: &[&C0_I0],
    outputs: &[&C0_O0],
    waiting: false,
}];
