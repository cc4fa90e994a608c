#include "extrap/ScalingModel.h"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <bit>
#include <cmath>
#include <limits>

namespace tracegen::extrap {

namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

Int128 gcd128(Int128 a, Int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    Int128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// The integer k-th root of x if x is a perfect k-th power.
std::optional<std::int64_t> exactRoot(std::int64_t x, int k) {
  if (k == 1) return x;
  auto r = static_cast<std::int64_t>(std::llround(std::pow(static_cast<double>(x), 1.0 / k)));
  for (std::int64_t c = std::max<std::int64_t>(r - 1, 0); c <= r + 1; ++c) {
    Int128 p = 1;
    for (int i = 0; i < k; ++i) p *= c;
    if (p == x) return c;
  }
  return std::nullopt;
}

std::optional<Rational> power(Rational base, int e) {
  Rational r{1, 1};
  for (int i = 0; i < e; ++i) {
    auto m = mul(r, base);
    if (!m) return std::nullopt;
    r = *m;
  }
  return r;
}

std::string coefficientTimes(const Rational& c, const std::string& what) {
  if (c == Rational{1, 1}) return what;
  if (c == Rational{-1, 1}) return "-" + what;
  return c.str() + "*" + what;
}

// "c1*term", written as a quotient where the term is an inverse power ("4096/P").
std::string termWithCoefficient(const Rational& c1, const Term& t) {
  if (t.num2 != 0) {
    if (t.num < 0 && t.num2 < 0 && c1.isInteger())
      return fmt::format("{}/({}*{})", c1.num, scaleVarName(t.var), scaleVarName(t.var2));
    return coefficientTimes(c1, t.str());
  }
  if (t.num < 0 && t.logPower == 0 && c1.isInteger()) {
    Term pos = t;
    pos.num = -t.num;
    return fmt::format("{}/{}", c1.num, pos.str());
  }
  return coefficientTimes(c1, t.str());
}

}  // namespace

std::string_view scaleVarName(ScaleVar v) {
  switch (v) {
    case ScaleVar::P: return "P";
    case ScaleVar::Px: return "px";
    case ScaleVar::Py: return "py";
    case ScaleVar::Pz: return "pz";
  }
  return "?";
}

std::int64_t Scale::value(ScaleVar v) const {
  return v == ScaleVar::P ? ranks : grid[static_cast<std::size_t>(v) - 1];
}

std::string Scale::str() const {
  if (grid == std::array<std::int64_t, 3>{1, 1, 1} || grid[0] * grid[1] * grid[2] != ranks)
    return fmt::format("P={}", ranks);
  if (grid[2] == 1) return fmt::format("P={} ({}x{})", ranks, grid[0], grid[1]);
  return fmt::format("P={} ({}x{}x{})", ranks, grid[0], grid[1], grid[2]);
}

std::optional<Rational> Rational::make(Int128 num, Int128 den) {
  if (den == 0) return std::nullopt;
  if (den < 0) {
    num = -num;
    den = -den;
  }
  const Int128 g = gcd128(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  if (num > kMax || num < -kMax || den > kMax) return std::nullopt;
  return Rational{static_cast<std::int64_t>(num), static_cast<std::int64_t>(den)};
}

std::string Rational::str() const { return den == 1 ? fmt::format("{}", num) : fmt::format("{}/{}", num, den); }

std::optional<Rational> add(Rational a, Rational b) {
  return Rational::make(static_cast<Int128>(a.num) * b.den + static_cast<Int128>(b.num) * a.den,
                        static_cast<Int128>(a.den) * b.den);
}
std::optional<Rational> sub(Rational a, Rational b) { return add(a, Rational{-b.num, b.den}); }
std::optional<Rational> mul(Rational a, Rational b) {
  return Rational::make(static_cast<Int128>(a.num) * b.num, static_cast<Int128>(a.den) * b.den);
}
std::optional<Rational> div(Rational a, Rational b) {
  if (b.num == 0) return std::nullopt;
  return Rational::make(static_cast<Int128>(a.num) * b.den, static_cast<Int128>(a.den) * b.num);
}

std::optional<Rational> Term::exact(std::int64_t x) const {
  if (x < 1) return std::nullopt;
  Rational v{1, 1};
  if (num != 0) {
    auto root = exactRoot(x, den);
    if (!root) return std::nullopt;
    auto p = power(Rational{*root, 1}, num < 0 ? -num : num);
    if (!p) return std::nullopt;
    v = num < 0 ? *div(Rational{1, 1}, *p) : *p;
  }
  if (logPower > 0) {
    if (!std::has_single_bit(static_cast<std::uint64_t>(x))) return std::nullopt;
    auto l = power(Rational{std::countr_zero(static_cast<std::uint64_t>(x)), 1}, logPower);
    if (!l) return std::nullopt;
    auto m = mul(v, *l);
    if (!m) return std::nullopt;
    v = *m;
  }
  return v;
}

double Term::real(double x) const {
  return std::pow(x, static_cast<double>(num) / den) * std::pow(std::log2(x), logPower);
}

std::optional<Rational> Term::at(const Scale& s) const {
  auto v = exact(s.value(var));
  if (!v || num2 == 0) return v;
  const std::int64_t y = s.value(var2);
  if (y < 1) return std::nullopt;
  return num2 > 0 ? mul(*v, Rational{y, 1}) : div(*v, Rational{y, 1});
}

double Term::realAt(const Scale& s) const {
  const double v = real(static_cast<double>(s.value(var)));
  if (num2 == 0) return v;
  const auto y = static_cast<double>(s.value(var2));
  return num2 > 0 ? v * y : v / y;
}

std::string Term::domain() const {
  std::vector<std::string> parts;
  if (num != 0 && den == 2) parts.push_back("a square number");
  if (num != 0 && den == 3) parts.push_back("a cube");
  if (logPower > 0) parts.push_back("a power of two");
  return fmt::format("{}", fmt::join(parts, " and "));
}

std::string Term::str() const {
  const std::string x(scaleVarName(var));
  if (num2 != 0) {  // num is 1 or -1 (candidateTerms)
    const std::string y(scaleVarName(var2));
    if (num > 0 && num2 > 0) return x + "*" + y;
    if (num < 0 && num2 < 0) return "1/(" + x + "*" + y + ")";
    return num > 0 ? x + "/" + y : y + "/" + x;
  }
  std::string p;
  const int n = num < 0 ? -num : num;
  if (n == 0) p = "";
  else if (den == 1 && n == 1) p = x;
  else if (den == 1) p = fmt::format("{}^{}", x, n);
  else if (n == 1 && den == 2) p = fmt::format("sqrt({})", x);
  else if (n == 1 && den == 3) p = fmt::format("cbrt({})", x);
  else p = fmt::format("{}^({}/{})", x, n, den);
  std::string l = logPower == 0 ? "" : logPower == 1 ? fmt::format("log2({})", x) : fmt::format("log2({})^{}", x, logPower);
  std::string s = p.empty() ? l : l.empty() ? p : p + "*" + l;
  if (s.empty()) s = "1";
  return num < 0 ? "1/" + (l.empty() ? s : "(" + s + ")") : s;
}

std::vector<Term> candidateTerms(std::span<const ScaleVar> vars, bool pairs) {
  // (exponent numerator, denominator, log power), simplest first.
  static constexpr std::array<std::array<int, 3>, 14> kShapes{{
      {1, 1, 0}, {-1, 1, 0}, {1, 2, 0}, {-1, 2, 0}, {0, 1, 1}, {1, 3, 0}, {-1, 3, 0},
      {2, 1, 0}, {1, 1, 1}, {3, 1, 0}, {-2, 1, 0}, {2, 3, 0}, {3, 2, 0}, {0, 1, 2},
  }};
  std::vector<Term> terms;
  for (const auto& s : kShapes)
    for (ScaleVar v : vars) terms.push_back(Term{v, s[0], s[1], s[2]});
  std::vector<ScaleVar> extents;
  for (ScaleVar v : vars)
    if (v != ScaleVar::P) extents.push_back(v);
  if (pairs && extents.size() == 3)
    for (auto [e1, e2] : {std::pair{-1, -1}, {1, -1}, {-1, 1}, {1, 1}})
      for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = a + 1; b < 3; ++b) terms.push_back(Term{extents[a], e1, 1, 0, extents[b], e2});
  return terms;
}

std::optional<Rational> ExactModel::at(const Scale& s) const {
  if (term.isOne() || c1.num == 0) return c0;
  auto t = term.at(s);
  if (!t) return std::nullopt;
  auto m = mul(c1, *t);
  if (!m) return std::nullopt;
  return add(c0, *m);
}

std::string ExactModel::str() const {
  if (c1.num == 0 || term.isOne()) return c0.str();
  if (c0.num == 0) return termWithCoefficient(c1, term);
  if (c1.num < 0) return c0.str() + " - " + termWithCoefficient(Rational{-c1.num, c1.den}, term);
  return c0.str() + " + " + termWithCoefficient(c1, term);
}

double RealModel::at(const Scale& s) const {
  if (term.isOne()) return c0;
  return c0 + c1 * term.realAt(s);
}

std::string RealModel::str() const {
  if (term.isOne() || c1 == 0) return fmt::format("{:.4g}", c0);
  if (c0 == 0) return fmt::format("{:.4g}*{}", c1, term.str());
  return fmt::format("{:.4g} {} {:.4g}*{}", c0, c1 < 0 ? '-' : '+', std::abs(c1), term.str());
}

namespace {

// The model of `parameters` parameters with `term` whose coefficients the first inputs give
// (see ExactFit::rejected), whether or not it reproduces the others.
std::optional<ExactModel> solveCoefficients(std::span<const Observation<std::int64_t>> in, const Term& term, int parameters) {
  std::vector<Rational> t;
  for (const auto& o : in) {
    auto v = term.at(o.scale);
    if (!v) return std::nullopt;
    t.push_back(*v);
  }
  ExactModel m;
  m.term = term;
  m.parameters = parameters;
  if (parameters == 1) {  // c1 * t
    std::size_t k = 0;
    while (k < t.size() && t[k].num == 0) ++k;
    if (k == t.size()) return std::nullopt;
    auto c1 = div(Rational{in[k].value, 1}, t[k]);
    if (!c1) return std::nullopt;
    m.c1 = *c1;
  } else {  // c0 + c1 * t, from the first two inputs whose terms differ
    std::size_t k = 1;
    while (k < t.size() && t[k] == t[0]) ++k;
    if (k == t.size()) return std::nullopt;
    auto dv = sub(Rational{in[k].value, 1}, Rational{in[0].value, 1});
    auto dt = sub(t[k], t[0]);
    if (!dv || !dt) return std::nullopt;
    auto c1 = div(*dv, *dt);
    if (!c1) return std::nullopt;
    auto c1t0 = mul(*c1, t[0]);
    if (!c1t0) return std::nullopt;
    auto c0 = sub(Rational{in[0].value, 1}, *c1t0);
    if (!c0) return std::nullopt;
    m.c0 = *c0;
    m.c1 = *c1;
  }
  return m;
}

// Whether a model reproduces every input exactly.
bool reproduces(const ExactModel& m, std::span<const Observation<std::int64_t>> in) {
  for (const auto& o : in) {
    auto v = m.at(o.scale);
    if (!v || !(*v == Rational{o.value, 1})) return false;
  }
  return true;
}

// Whether a term takes one value at every input: it then explains nothing a constant does not.
bool constantOver(std::span<const Observation<std::int64_t>> in, const Term& term) {
  if (term.num2 != 0) {
    for (const auto& o : in)
      if (term.at(o.scale) != term.at(in.front().scale)) return false;
    return true;
  }
  for (const auto& o : in)
    if (o.scale.value(term.var) != in.front().scale.value(term.var)) return false;
  return true;
}

}  // namespace

ExactFit fitExact(std::span<const Observation<std::int64_t>> in, std::span<const ScaleVar> vars, const Scale& target,
                  std::span<const Scale> probes, bool pairs) {
  ExactFit fit;
  if (in.empty()) return fit;
  const int n = static_cast<int>(in.size());
  const auto terms = candidateTerms(vars, pairs);
  for (int parameters = 1; parameters <= 2 && parameters < n; ++parameters) {
    std::vector<ExactModel> fits;
    if (parameters == 1) {
      ExactModel c;
      c.c0 = Rational{in.front().value, 1};
      fit.tried.push_back(c.c0.str());
      bool all = true;
      for (const auto& o : in) all = all && o.value == in.front().value;
      if (all) fits.push_back(c);
      else fit.rejected.push_back(c);
    }
    for (const Term& t : terms) {
      if (constantOver(in, t)) continue;
      fit.tried.push_back(parameters == 1 ? "c*" + t.str() : "a + b*" + t.str());
      if (auto m = solveCoefficients(in, t, parameters)) {
        if (reproduces(*m, in)) fits.push_back(*m);
        else fit.rejected.push_back(*m);
      }
    }
    if (fits.empty()) continue;
    fit.model = fits.front();
    const auto chosen = fit.model->at(target);
    for (std::size_t i = 1; i < fits.size(); ++i)
      if (fits[i].at(target) != chosen) fit.rivals.push_back(fits[i]);
    for (const Scale& s : probes) {
      if (fit.rivals.empty() || fit.settle) break;
      const auto c = fit.model->at(s);
      for (const auto& r : fit.rivals)
        if (c && r.at(s) && *r.at(s) != *c) {
          fit.settle = s;
          break;
        }
    }
    return fit;
  }
  return fit;
}

namespace {

// Least squares of the model shape (constant, c1*t, c0 + c1*t) over the given inputs, of the
// relative residuals (each row weighted by 1/|value|): models are judged by their relative
// errors (cross-validation below), and plain least squares would let the largest input (the
// smallest scale of a strong-scaling time) pull the fit away from the others.
std::optional<RealModel> solveReal(std::span<const Observation<double>> in, const Term& term, int parameters) {
  RealModel m;
  m.term = term;
  m.parameters = parameters;
  const auto n = static_cast<Eigen::Index>(in.size());
  Eigen::VectorXd y(n), t(n), w(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& o = in[static_cast<std::size_t>(i)];
    y(i) = o.value;
    w(i) = 1.0 / std::max(std::abs(o.value), 1e-12);
    t(i) = term.realAt(o.scale);
    if (!std::isfinite(t(i))) return std::nullopt;
  }
  if (term.isOne() || parameters == 1) {
    // One coefficient: the weighted least-squares solution is the ratio of two dot products (the
    // normal equation), the QR below's answer without its allocations: most of the candidate
    // models fitReal tries, leave-one-out, are of this shape. A zero column solves to 0, as
    // the pivoting QR's minimal solution does.
    const Eigen::VectorXd wx = term.isOne() ? w : Eigen::VectorXd(w.cwiseProduct(t));
    const double norm = wx.squaredNorm();
    const double c = norm > 0 ? wx.dot(w.cwiseProduct(y)) / norm : 0.0;
    if (!std::isfinite(c)) return std::nullopt;
    (term.isOne() ? m.c0 : m.c1) = c;
    return m;
  }
  // a + c*t: two columns, and rows on the stack up to kStackRows observations (inputs are a few
  // scales, times a few timing sub-groups), so that the thousands of small solves a fit makes
  // allocate nothing.
  constexpr int kStackRows = 16;
  auto solve = [&](auto& wx, auto& wy) -> bool {
    for (Eigen::Index i = 0; i < n; ++i) {
      wx(i, 0) = w(i);
      wx(i, 1) = w(i) * t(i);
      wy(i) = w(i) * y(i);
    }
    const Eigen::Vector2d c = wx.colPivHouseholderQr().solve(wy);
    if (!c.allFinite()) return false;
    m.c0 = c(0);
    m.c1 = c(1);
    return true;
  };
  bool ok;
  if (n <= kStackRows) {
    Eigen::Matrix<double, Eigen::Dynamic, 2, Eigen::ColMajor, kStackRows, 2> wx(n, 2);
    Eigen::Matrix<double, Eigen::Dynamic, 1, Eigen::ColMajor, kStackRows, 1> wy(n);
    ok = solve(wx, wy);
  } else {
    Eigen::Matrix<double, Eigen::Dynamic, 2> wx(n, 2);
    Eigen::VectorXd wy(n);
    ok = solve(wx, wy);
  }
  if (!ok) return std::nullopt;
  return m;
}

double relativeError(double predicted, double actual) {
  const double scale = std::max(std::abs(actual), 1e-12);
  return std::abs(predicted - actual) / scale;
}

}  // namespace

RealFit fitReal(std::span<const Observation<double>> in, std::span<const ScaleVar> vars, const RealFitOptions& options) {
  RealFit best;
  if (in.empty()) return best;
  const std::size_t n = in.size();
  // Simplest first: the constant, every c*t, then every a + c*t.
  std::vector<std::pair<Term, int>> shapes{{Term{}, 1}};
  std::vector<Term> varying;
  for (const Term& t : candidateTerms(vars)) {
    bool varies = false;
    for (const auto& o : in) varies = varies || o.scale.value(t.var) != in.front().scale.value(t.var);
    if (varies) varying.push_back(t);
  }
  for (const Term& t : varying) shapes.emplace_back(t, 1);
  if (n >= 3)
    for (const Term& t : varying) shapes.emplace_back(t, 2);
  // Each candidate with its error and its score: the error plus the complexity margin per degree of
  // complexity (0 for the constant, 1 for c*t, 2 for a + c*t), so that a model with more freedom
  // is taken only where it predicts the held-back inputs better by more than the margin.
  struct Candidate {
    RealModel model;
    double error;
    double score;
  };
  std::vector<Candidate> candidates;
  for (const auto& [term, parameters] : shapes) {
    double error = 0;
    if (n >= 3) {  // leave one out: fit without input i, judge at input i
      for (std::size_t i = 0; i < n && std::isfinite(error); ++i) {
        std::vector<Observation<double>> rest;
        for (std::size_t j = 0; j < n; ++j)
          if (j != i) rest.push_back(in[j]);
        auto m = solveReal(rest, term, parameters);
        error = m ? error + relativeError(m->at(in[i].scale), in[i].value) : std::numeric_limits<double>::infinity();
      }
      error /= static_cast<double>(n);
    } else {  // two inputs: one-parameter models by their residual
      auto m = solveReal(in, term, parameters);
      if (!m) continue;
      for (const auto& o : in) error += relativeError(m->at(o.scale), o.value);
      error /= static_cast<double>(n);
    }
    if (!std::isfinite(error)) continue;
    auto m = solveReal(in, term, parameters);
    if (!m || (options.nonNegative && (m->c0 < 0 || m->c1 < 0))) continue;
    const int complexity = term.isOne() ? 0 : parameters;
    candidates.push_back({*m, error, error + options.complexityMargin * complexity});
  }
  // Best first; a candidate ranks above an earlier (simpler or equally simple) one only when
  // its score is lower by 1% of the values, so that among models of one complexity the simpler
  // term (1/P before 1/cbrt(px)) keeps near-ties.
  std::vector<Candidate> ordered;
  for (auto& candidate : candidates) {
    auto at = ordered.begin();
    while (at != ordered.end() && at->score <= candidate.score + 0.01) ++at;
    ordered.insert(at, std::move(candidate));
  }
  for (auto& c : ordered) best.ranked.emplace_back(c.model, c.error);
  if (!ordered.empty()) {
    best.model = ordered.front().model;
    best.crossValidationError = ordered.front().error;
  }
  return best;
}

std::string valueListStr(const std::vector<std::int64_t>& values) {
  if (values.size() > 8)
    return fmt::format("[{} ... {}] ({} values)", fmt::join(values.begin(), values.begin() + 4, " "), values.back(),
                       values.size());
  return fmt::format("[{}]", fmt::join(values, " "));
}

RealFit RealFitCache::fit(std::span<const Observation<double>> inputs, std::span<const ScaleVar> vars,
                         const RealFitOptions& options) {
  // The key: every input's scale and value, the variables and the options, as numbers (rank
  // counts and extents are exact in a double far beyond any trace's).
  std::vector<double> key;
  key.reserve(inputs.size() * 5 + vars.size() + 2);
  for (const auto& o : inputs) {
    key.push_back(static_cast<double>(o.scale.ranks));
    for (std::int64_t e : o.scale.grid) key.push_back(static_cast<double>(e));
    key.push_back(o.value);
  }
  for (ScaleVar v : vars) key.push_back(static_cast<double>(v));
  key.push_back(options.complexityMargin);
  key.push_back(options.nonNegative ? 1 : 0);
  auto it = fits_.find(key);
  if (it == fits_.end()) it = fits_.emplace(std::move(key), fitReal(inputs, vars, options)).first;
  return it->second;
}

}  // namespace tracegen::extrap
