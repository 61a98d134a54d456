#!/usr/bin/env perl
# Post-processes flatc's Rust output (stdin → stdout) for tinyaot-schema; run by regen.sh, both to
# regenerate and for --check, so the checked-in file is always exactly "flatc, then this".
#
# 1. Verification goes through the crate's tolerant verifier (src/verifier.rs) instead of the
#    `flatbuffers` crate's: no alignment requirement, strings need not be UTF-8.
# 2. Every string field is followed as `crate::strings::LenientStr` instead of `&str` (whose
#    `Follow` is `from_utf8_unchecked`, unsound on unverified bytes): the `&str` accessor checks
#    UTF-8 when it reads; next to it, a `<field>_bytes()` accessor returns the stored bytes.
# 3. Fails if anything of the `flatbuffers` verifier or a `&str` follow is left.
use strict;
use warnings;

local $/;    # slurp: the accessor rewrite spans lines
my $src = <STDIN>;

# 1. The verifier's types and the verifying root functions (the unchecked ones stay).
$src =~ s/::flatbuffers::(Verifiable|Verifier|InvalidFlatbuffer|VerifierOptions|SimpleToVerifyInSlice)\b/crate::verifier::$1/g;
$src =~ s/::flatbuffers::((?:size_prefixed_)?root(?:_with_opts)?)::</crate::verifier::$1::</g;

# 2a. After each string accessor (optional or required), a raw-bytes accessor of the same shape:
#   pub fn name(&self) -> Option<&'a str> {
#     // Safety: ...
#     unsafe { self._tab.get::<::flatbuffers::ForwardsUOffset<&str>>(Tensor::VT_NAME, None)}
#   }
my $accessors = ($src =~ s{
    (\ \ pub\ fn\ (\w+)\(&self\)\ ->\ (Option<)?&'a\ str(>?)\ \{\n
     (?:\ \ \ \ //.*\n)*
     \ \ \ \ unsafe\ \{\ self\._tab\.get::<::flatbuffers::ForwardsUOffset<&str>>\((\w+::VT_\w+),\ None\)((?:\.unwrap\(\))?)\}\n
     \ \ \}\n)
}{$1  /// `$2` as stored: its bytes, not necessarily UTF-8 (see `crate::strings`).
  #[inline]
  pub fn ${2}_bytes(&self) -> $3&'a [u8]$4 {
    // Safety:
    // Created from valid Table for this object
    // which contains a verified string (in bounds, any bytes) in this slot
    unsafe { self._tab.get::<::flatbuffers::ForwardsUOffset<&[u8]>>($5, None)$6}
  }
}gx);

# 2b. Every string follow and verification (the accessors above and the table verifiers).
$src =~ s/::flatbuffers::ForwardsUOffset<&str>/::flatbuffers::ForwardsUOffset<crate::strings::LenientStr>/g;

# 3. Nothing may be left over.
my $followed = () = $src =~ /_tab\.get::<::flatbuffers::ForwardsUOffset<crate::strings::LenientStr>>/g;
die "postprocess.pl: $followed string accessors, $accessors given a bytes accessor\n"
    if $followed != $accessors;
die "postprocess.pl: a string is still followed as &str (a vector of strings?)\n"
    if $src =~ /ForwardsUOffset<&(?:'\w+ )?str>/;
die "postprocess.pl: flatbuffers' verifier is still used\n"
    if $src =~ /::flatbuffers::(?:Verif|InvalidFlatbuffer|SimpleToVerifyInSlice|(?:size_prefixed_)?root(?:_with_opts)?::<)/;

print $src;
