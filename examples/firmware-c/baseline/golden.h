/* The do-nothing model's one case: input 42, output 42. */
__attribute__((section(".golden"), used)) static const uint8_t c0_i0[1] = {42};
__attribute__((section(".golden"), used)) static const uint8_t c0_o0[1] = {42};
static const uint8_t *const c0_inputs[] = {c0_i0};
static const size_t c0_inputs_bytes[] = {1u};
static const uint8_t *const c0_outputs[] = {c0_o0};
static const size_t c0_outputs_bytes[] = {1u};

#define GOLDEN_CASES 1u
static const struct golden_case golden_cases[GOLDEN_CASES] = {
    {c0_inputs, c0_inputs_bytes, c0_outputs, c0_outputs_bytes, 0},
};
