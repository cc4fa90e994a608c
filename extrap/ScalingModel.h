// Scaling models: how one quantity of a trace (a trip count, a message size, a peer offset, a
// compute time) grows with the scale the application ran at, fitted from a few recordings.
//
// The models are Extra-P's performance-model normal form cut to one term,
//   f(s) = c0 + c1 * x^(i/j) * log2(x)^k,
// where x is the rank count P or one extent of the process grid (px, py, pz) and the exponent
// i/j may be negative (N/P, N/px: strong scaling). Integer quantities are fitted exactly, in
// rational arithmetic: a model is a candidate only if it reproduces every input, and it is
// trusted only if it has an input to spare (a k-parameter model through k points proves
// nothing). Among the exact fits the one with fewest parameters wins; when two of those
// disagree at the target scale the inputs do not settle the value, and the fit says which
// further scale would (FitResult::undecided). Real-valued quantities (times) are fitted by
// least squares (Eigen) and chosen by leave-one-out cross-validation: each model is fitted
// without one input scale and judged by its relative error at that scale, as Extra-P selects
// models.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tracegen::extrap {

// What a model may depend on at one scale.
enum class ScaleVar : std::uint8_t { P, Px, Py, Pz };
std::string_view scaleVarName(ScaleVar v);  // "P", "px", "py", "pz"

// One scale: the rank count and, where the application decomposes its domain on a grid, the
// grid's extents (1 in the dimensions it does not have).
struct Scale {
  std::int64_t ranks = 1;
  std::array<std::int64_t, 3> grid{1, 1, 1};
  std::int64_t value(ScaleVar v) const;
  std::string str() const;  // "P=16" or "P=16 (4x4)"
};

__extension__ typedef __int128 Int128;  // intermediate products of two int64 values

// An exact rational number; every operation reports overflow as nullopt.
struct Rational {
  std::int64_t num = 0, den = 1;  // den > 0, lowest terms
  static std::optional<Rational> make(Int128 num, Int128 den);
  bool isInteger() const { return den == 1; }
  std::string str() const;
  bool operator==(const Rational&) const = default;
};
std::optional<Rational> add(Rational a, Rational b);
std::optional<Rational> sub(Rational a, Rational b);
std::optional<Rational> mul(Rational a, Rational b);
std::optional<Rational> div(Rational a, Rational b);

// x^(num/den) * log2(x)^logPower, times y^num2 for a second grid extent y where num2 is 1 or
// -1 (0: no second factor): the face of a 3-D block decomposition is N^2/(py*pz), the coarsest
// level of a multigrid whose level count follows the longest side pz is 4*pz/py.
struct Term {
  ScaleVar var = ScaleVar::P;
  int num = 0, den = 1;
  int logPower = 0;
  ScaleVar var2 = ScaleVar::P;
  int num2 = 0;
  bool isOne() const { return num == 0 && logPower == 0 && num2 == 0; }
  // The exact value of the first factor at x, or nullopt where it is irrational (sqrt of a
  // non-square, log2 of a non-power of two) or out of range.
  std::optional<Rational> exact(std::int64_t x) const;
  // The exact value at a scale, both factors.
  std::optional<Rational> at(const Scale& s) const;
  double real(double x) const;
  double realAt(const Scale& s) const;
  // What x must be for exact() to have a value ("a square number", "a power of two"), or "".
  std::string domain() const;
  std::string str() const;  // "P", "sqrt(px)", "1/P", "log2(P)", "P*log2(P)"
  bool operator==(const Term&) const = default;
};

// Every term the fits try for the variables given, simplest first; with `pairs` and three grid
// extents among them, then the products and quotients of two extents (px*py, px/py, 1/(px*py)).
std::vector<Term> candidateTerms(std::span<const ScaleVar> vars, bool pairs = false);

// c0 + c1 * term. Parameters: 1 for a constant (c1 = 0, term 1) or for c1 * term alone (c0 =
// 0), 2 for both.
struct ExactModel {
  Rational c0, c1;
  Term term;
  int parameters = 1;
  // The value at a scale, or nullopt where the term has no exact value there (Term::domain).
  std::optional<Rational> at(const Scale& s) const;
  std::string str() const;  // "4096/P", "2 + 3*log2(P)", "8*px", "12"
};

struct RealModel {
  double c0 = 0, c1 = 0;
  Term term;
  int parameters = 1;
  double at(const Scale& s) const;
  std::string str() const;
};

template <typename V>
struct Observation {
  Scale scale;
  V value;
};

struct ExactFit {
  std::optional<ExactModel> model;  // the chosen model; empty when none fits every input
  // Models with as few parameters as the chosen one that also fit every input but give another
  // value at the target: the inputs do not decide between them.
  std::vector<ExactModel> rivals;
  // When there are rivals: a scale (among those the caller offered) where they disagree, whose
  // recording would settle the choice.
  std::optional<Scale> settle;
  std::vector<std::string> tried;  // every model tried, for the error when none fits
  // The models tried that miss some input, their coefficients solved from the first inputs (c*t
  // through the first whose term is not zero, a + b*t through the first two whose terms
  // differ, the constant the first value), in the order tried: what the inputs ruled out, for
  // the pictures of `extrapolate --plot`.
  std::vector<ExactModel> rejected;
};

// Fits integers exactly. `target` is the scale the value is wanted at (for the rivals check);
// `probes` the scales that could be recorded further (for `settle`).
// `pairs`: also the terms of two grid extents (candidateTerms), which only a fixed target can
// take (a scale-free formula has one variable per term).
ExactFit fitExact(std::span<const Observation<std::int64_t>> inputs, std::span<const ScaleVar> vars,
                  const Scale& target, std::span<const Scale> probes = {}, bool pairs = false);

struct RealFit {
  std::optional<RealModel> model;
  double crossValidationError = 0;  // mean relative error at the held-back scales
  // Every model that could be fitted, best first, with its cross-validation error: the caller
  // takes the first whose prediction is plausible where it is needed (a time that would be
  // negative at the target rules its model out, not every model).
  std::vector<std::pair<RealModel, double>> ranked;
};

// How fitReal chooses among its models.
struct RealFitOptions {
  // A model with more freedom (c*t over a constant, a + c*t over c*t) must predict the held-back
  // inputs better by this much (a fraction of the values) to be taken.
  double complexityMargin = 0.01;
  // Only models whose coefficients are all zero or positive: a time is a sum of non-negative
  // parts, and a fit such as 99.7 - 35.0*sqrt(px) or -193 + 30,370/P describes the inputs' noise
  // and falls towards zero (or below) at a larger scale.
  bool nonNegative = false;
};

// For measured times (compute and MPI time per event). A strong-scaling stencil's compute per
// step, recorded with CPU time at 4, 9 and 16 ranks on 2 cores, scatters by about 5% around c/P;
// with a margin of 1% and negative coefficients allowed, a + c/P fitted that scatter in one run
// out of three and missed the recording at 64 ranks by 20-40% (bench/extrapolate-compute.sh).
constexpr RealFitOptions kTimeFit{0.05, true};

// Fits real values by least squares of the relative residuals; with three or more inputs the
// model is chosen by leave-one-out cross-validation, with two among the one-parameter models by
// residual.
RealFit fitReal(std::span<const Observation<double>> inputs, std::span<const ScaleVar> vars,
                const RealFitOptions& options = {});

// Least-squares fits already made, by their inputs. A fit does not depend on the scale it is
// wanted at, and the extrapolations to a scale-free benchmark's template scales fit the same
// recorded times once per template (extrap/ScaleFree.cpp shares one cache between them): a
// third of a 16-rank stencil's scale-free build was the same fits made six times.
class RealFitCache {
 public:
  RealFit fit(std::span<const Observation<double>> inputs, std::span<const ScaleVar> vars,
              const RealFitOptions& options = {});
  std::size_t size() const { return fits_.size(); }

 private:
  std::map<std::vector<double>, RealFit> fits_;
};

// A value list as the messages and --explain show it: "[8 8 16]", or past eight values its
// first four, its last and its length.
std::string valueListStr(const std::vector<std::int64_t>& values);

}  // namespace tracegen::extrap
