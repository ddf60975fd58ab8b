// nodecure: patches/ada rewrites three quadratic steps of ada's IDNA code
// (punycode encoding and decoding, the canonical ordering of combining
// marks) and must not change a single output. `make test` (part deps)
// builds ada_idna.cpp twice from the pinned tarball, as released (its
// namespace renamed ada::idna_released) and with patches/ada, and links
// both here: every output, rejection and partial result must agree.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace ada::idna_released {
bool utf32_to_punycode(std::u32string_view input, std::string& out);
bool punycode_to_utf32(std::string_view input, std::u32string& out);
void sort_marks(std::u32string& input);
}  // namespace ada::idna_released

namespace ada::idna {
bool utf32_to_punycode(std::u32string_view input, std::string& out);
bool punycode_to_utf32(std::string_view input, std::u32string& out);
void sort_marks(std::u32string& input);
}  // namespace ada::idna

namespace {

namespace released = ada::idna_released;
namespace patched = ada::idna;

// Code point ranges a label is drawn from: ASCII letters and digits,
// Latin-1, combining marks, ideographs, Hangul, two-byte, astral, and
// around the surrogates (which the encoder rejects).
const std::vector<std::pair<uint32_t, uint32_t>> kRanges = {
    {'a', 'z'},         {'0', '9'},       {0xe0, 0xff},
    {0x300, 0x36f},     {0x4e00, 0x4e40}, {0xac00, 0xac10},
    {0x1f600, 0x1f610}, {0x80, 0x7ff},    {0x10000, 0x10ffff},
    {0xd7f0, 0xe010}};

std::u32string RandomLabel(std::mt19937* rng, size_t length) {
  std::u32string s;
  const size_t ranges = 1 + (*rng)() % kRanges.size();
  for (size_t i = 0; i < length; i++) {
    const auto& r = kRanges[(*rng)() % ranges];
    s.push_back(char32_t(r.first + (*rng)() % (r.second - r.first + 1)));
  }
  return s;
}

std::string Encode(bool use_patched, const std::u32string& s, bool* ok) {
  std::string out = "xn--";
  *ok = use_patched ? patched::utf32_to_punycode(s, out)
                    : released::utf32_to_punycode(s, out);
  return out;
}

TEST(AdaIdnaDifferential, EncodingMatchesRelease) {
  std::mt19937 rng(42);
  int rejected = 0;
  for (int iteration = 0; iteration < 100000; iteration++) {
    const std::u32string s =
        RandomLabel(&rng, rng() % (iteration < 500 ? 3000 : 60));
    bool ok_released, ok_patched;
    const std::string a = Encode(false, s, &ok_released);
    const std::string b = Encode(true, s, &ok_patched);
    ASSERT_EQ(ok_released, ok_patched) << "iteration " << iteration;
    if (ok_released) {
      ASSERT_EQ(a, b) << "iteration " << iteration;
    } else {
      rejected++;
    }
  }
  EXPECT_GT(rejected, 0);  // Surrogates and the like were drawn too.
}

TEST(AdaIdnaDifferential, EncodingOverflowsWhereReleaseDoes) {
  // Code points near U+10FFFF and near U+0080, mixed: deltas that pass
  // 0x7fffffff on long labels.
  std::mt19937 rng(7);
  int rejected = 0;
  for (int iteration = 0; iteration < 2000; iteration++) {
    std::u32string s;
    const size_t length = 1 + rng() % 4000;
    for (size_t i = 0; i < length; i++) {
      s.push_back(char32_t(rng() % 2 ? 0x10fff0 + rng() % 15
                                     : 0x80 + rng() % 50));
    }
    bool ok_released, ok_patched;
    const std::string a = Encode(false, s, &ok_released);
    const std::string b = Encode(true, s, &ok_patched);
    ASSERT_EQ(ok_released, ok_patched) << "iteration " << iteration;
    if (ok_released) ASSERT_EQ(a, b) << "iteration " << iteration;
    else rejected++;
  }
  EXPECT_GT(rejected, 0);
}

TEST(AdaIdnaDifferential, DecodingMatchesRelease) {
  std::mt19937 rng(1234);
  int decoded = 0;
  for (int iteration = 0; iteration < 100000; iteration++) {
    std::string input;
    if (iteration % 2 == 0) {
      // What the encoder makes of a random label (without "xn--").
      bool ok;
      input = Encode(false, RandomLabel(&rng, rng() % 300), &ok).substr(4);
    } else {
      // Anything: digits, letters, dashes, a byte past ASCII.
      static const char kAlphabet[] =
          "abcdefghijklmnopqrstuvwxyz0123456789-ABZ\x80";
      const size_t length = rng() % 40;
      for (size_t i = 0; i < length; i++)
        input.push_back(kAlphabet[rng() % (sizeof(kAlphabet) - 1)]);
    }
    // Into an empty string, and after content of the caller's (upstream
    // inserts relative to the start of `out`, whatever it held).
    for (const std::u32string& prior : {std::u32string(), std::u32string(U"xy")}) {
      std::u32string a = prior, b = prior;
      const bool ok_released = released::punycode_to_utf32(input, a);
      const bool ok_patched = patched::punycode_to_utf32(input, b);
      ASSERT_EQ(ok_released, ok_patched) << input;
      ASSERT_EQ(a, b) << input;  // Also what a failure leaves.
      if (ok_released && prior.empty()) decoded++;
    }
  }
  EXPECT_GT(decoded, 1000);
}

TEST(AdaIdnaDifferential, MarksOrderedAsRelease) {
  std::mt19937 rng(99);
  for (int iteration = 0; iteration < 100000; iteration++) {
    std::u32string s = RandomLabel(&rng, rng() % 200);
    std::u32string a = s, b = s;
    released::sort_marks(a);
    patched::sort_marks(b);
    ASSERT_EQ(a, b) << "iteration " << iteration;
  }
}

TEST(AdaIdnaDifferential, LongLabelsRoundTrip) {
  // 200,000 distinct ideographs: quadratic as released (seconds), not here.
  std::u32string s;
  for (uint32_t i = 0; i < 200000; i++) s.push_back(0x4e00 + (i * 7919) % 20000);
  std::string encoded;
  ASSERT_TRUE(patched::utf32_to_punycode(s, encoded));
  std::u32string decoded;
  ASSERT_TRUE(patched::punycode_to_utf32(encoded, decoded));
  EXPECT_EQ(decoded, s);
}

}  // namespace
