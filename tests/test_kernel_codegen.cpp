// The C derivative kernels generated from model files (src/model_file/kernel_codegen.hpp,
// include/mechint/kernel/model_kernels.h). Every example of examples/models/, pendulum chains of 2
// to 30 links written with definitions, and a model with a domain, constraints, symmetries, forces
// and controls are generated, compiled with the system's C compiler into a private directory,
// loaded, and compared at random points with dual numbers run through the checked expression trees
// (model_file/evaluate.hpp): a separate path through the same expressions, exact to round-off, for
// value, L_q, L_v, L_qq, L_qv, L_vv, g, Dg, xi, f, f_q and f_v. Also: fewer outputs asked give the
// same numbers, the declared domain gives MECHINT_KERNEL_OUTSIDE_DOMAIN, the source is warning-free
// C99 that holds none of the file's names, and a wrong ABI version or parameter count is refused.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/child_process.hpp"
#include "kernel/galerkin_integrator.hpp"
#include "kernel/kernel_model.hpp"
#include "mechint/kernel/model_kernels.h"
#include "model_file/chain_model_text.hpp"
#include "model_file/evaluate.hpp"
#include "model_file/kernel_codegen.hpp"
#include "model_file/model_file.hpp"
#include "separable_step_checks.hpp"
#include "mixed_chain_model.hpp"

namespace {

namespace fs = std::filesystem;
using namespace mechint::model_file;

// ---- compiling and loading ----------------------------------------------------------------------

/// The generated source compiled into a private temporary directory (removed at the end) and loaded.
class CompiledKernels {
 public:
  /// `compiler`: the program and its language flags.
  explicit CompiledKernels(const std::string& source, const std::vector<std::string>& extra_flags = {},
                           const std::vector<std::string>& compiler = {"/usr/bin/cc", "-std=c99"}) {
    std::string pattern = (fs::temp_directory_path() / "mechint-kernels-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp failed";
      return;
    }
    dir_ = pattern;
    const std::string c = (dir_ / "kernels.c").string(), so = (dir_ / "kernels.so").string();
    const std::string log = (dir_ / "cc.log").string();
    std::ofstream(c, std::ios::binary) << source;
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      ADD_FAILURE() << "cannot create " << log;
      return;
    }
    // As mechint's loader compiles them: only the fill function is exported.
    std::vector<std::string> argv = compiler;
    argv.insert(argv.end(), {"-O1", "-shared", "-fPIC", "-fvisibility=hidden"});
    argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
    argv.insert(argv.end(), {"-o", so, c, "-lm"});
    const auto result = mechint::app::run_program(argv, mechint::app::ChildOutput::file(fd));
    ::close(fd);
    std::ifstream in(log);
    std::stringstream messages;
    messages << in.rdbuf();
    compiler_messages_ = messages.str();
    if (!result.succeeded()) {
      ADD_FAILURE() << "the C compiler failed (status " << result.exit_status << "):\n" << compiler_messages_;
      return;
    }
    handle_ = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      ADD_FAILURE() << "dlopen: " << ::dlerror();
      return;
    }
    void* symbol = ::dlsym(handle_, MECHINT_FILL_KERNELS_SYMBOL);
    if (symbol == nullptr) {
      ADD_FAILURE() << "no symbol " << MECHINT_FILL_KERNELS_SYMBOL;
      return;
    }
    fill_ = reinterpret_cast<mechint_fill_kernels_fn>(symbol);
  }

  ~CompiledKernels() {
    if (handle_ != nullptr) ::dlclose(handle_);
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }
  CompiledKernels(const CompiledKernels&) = delete;
  CompiledKernels& operator=(const CompiledKernels&) = delete;

  bool ok() const { return fill_ != nullptr; }
  const std::string& compiler_messages() const { return compiler_messages_; }
  int fill(std::uint32_t abi, const std::vector<double>& parameters, mechint_model_kernels* out) const {
    return fill_(abi, parameters.data(), static_cast<std::int32_t>(parameters.size()), out);
  }

 private:
  fs::path dir_;
  void* handle_ = nullptr;
  mechint_fill_kernels_fn fill_ = nullptr;
  std::string compiler_messages_;
};

std::vector<double> parameter_values(const ModelDescription& m) {
  std::vector<double> p;
  for (const auto& x : m.parameters) p.push_back(x.value);
  return p;
}

// ---- the reference: dual numbers on the trees -----------------------------------------------------

/// q and v of the models checked against this reference (at most 32 coordinates; model files may
/// have up to kMaxCoordinates, whose fixed-size duals would be too large to be useful here).
constexpr int kMaxVariables = 64;
using Gradient = Eigen::Matrix<double, kMaxVariables, 1>;
/// First derivatives with respect to (q, v).
using Dual = Eigen::AutoDiffScalar<Gradient>;
/// Second derivatives: first derivatives (inner) along one direction (outer).
using Dual2 = Eigen::AutoDiffScalar<Eigen::Matrix<Dual, 1, 1>>;

Dual seeded(double x, int variable) { return variable < 0 ? Dual(x, Gradient::Zero()) : Dual(x, kMaxVariables, variable); }

Dual2 seeded2(double x, int variable, bool along) {
  Dual2 r;
  r.value() = seeded(x, variable);
  r.derivatives()[0] = Dual(along ? 1.0 : 0.0, Gradient::Zero());
  return r;
}

/// A point of (q, v, u, t).
struct Point {
  std::vector<double> q, v, u;
  double t = 0.0;
};

bool in_domain(const ModelDescription& m, const Point& x) {
  SymbolValues<double> s{x.q, x.v, parameter_values(m), x.u, x.t};
  return std::all_of(m.domain.begin(), m.domain.end(), [&](const Expression& d) { return evaluate(d, s) > 0.0; });
}

/// Points around the start, spread over the scale of each value, inside the domain.
std::vector<Point> random_points(const ModelDescription& m, int count) {
  std::mt19937_64 random(20240611);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Point> points;
  for (int tries = 0; tries < 1000 && static_cast<int>(points.size()) < count; ++tries) {
    Point x;
    for (std::size_t i = 0; i < m.coordinates.size(); ++i) {
      x.q.push_back(m.initial_q[i] + 0.3 * (1.0 + std::abs(m.initial_q[i])) * uniform(random));
      x.v.push_back(m.initial_v[i] + (1.0 + std::abs(m.initial_v[i])) * uniform(random));
    }
    for (std::size_t i = 0; i < m.controls.size(); ++i) x.u.push_back(uniform(random));
    x.t = uniform(random);
    if (in_domain(m, x)) points.push_back(x);
  }
  EXPECT_EQ(static_cast<int>(points.size()), count) << "too few points inside the domain";
  return points;
}

/// What the kernels compute, from dual numbers.
struct Reference {
  double value = 0.0;
  std::vector<double> l_q, l_v, l_qq, l_qv, l_vv, g, dg, curvature, f, f_q, f_v;
  std::vector<std::vector<double>> xi;
};

/// The multipliers the constraints' curvature is contracted with: the point's first velocities.
std::vector<double> multipliers(const ModelDescription& m, const Point& x) {
  return std::vector<double>(x.v.begin(), x.v.begin() + static_cast<std::ptrdiff_t>(m.constraints.size()));
}

Reference reference(const ModelDescription& m, const Point& x) {
  const int n = static_cast<int>(m.coordinates.size());
  Reference r;
  r.l_q.resize(n);
  r.l_v.resize(n);
  r.l_qq.resize(n * n);
  r.l_qv.resize(n * n);
  r.l_vv.resize(n * n);
  // Hessian row b: the gradient of L differentiated along variable b (q_i = i, v_i = n + i).
  for (int b = 0; b < 2 * n; ++b) {
    SymbolValues<Dual2> s;
    s.parameters = parameter_values(m);
    for (int i = 0; i < n; ++i) {
      s.q.push_back(seeded2(x.q[i], i, b == i));
      s.v.push_back(seeded2(x.v[i], n + i, b == n + i));
    }
    const Dual2 L = evaluate(m.lagrangian, s);
    r.value = L.value().value();
    for (int i = 0; i < n; ++i) {
      r.l_q[i] = L.value().derivatives()[i];
      r.l_v[i] = L.value().derivatives()[n + i];
    }
    const Gradient& row = L.derivatives()[0].derivatives();
    for (int j = 0; j < n; ++j) {
      if (b < n) r.l_qq[b * n + j] = row[j];
      if (b < n) r.l_qv[b * n + j] = row[n + j];
      if (b >= n) r.l_vv[(b - n) * n + j] = row[n + j];
    }
    // Row b of Σ_c λ_c ∂²g_c/∂q².
    if (b < n && !m.constraints.empty()) {
      r.curvature.resize(static_cast<std::size_t>(n * n), 0.0);
      const std::vector<double> lambda = multipliers(m, x);
      for (std::size_t c = 0; c < m.constraints.size(); ++c) {
        const Gradient& g_row = evaluate(m.constraints[c], s).derivatives()[0].derivatives();
        for (int j = 0; j < n; ++j) r.curvature[b * n + j] += lambda[c] * g_row[j];
      }
    }
  }
  SymbolValues<Dual> s;
  s.parameters = parameter_values(m);
  for (int i = 0; i < n; ++i) {
    s.q.push_back(seeded(x.q[i], i));
    s.v.push_back(seeded(x.v[i], n + i));
  }
  for (const double u : x.u) s.controls.push_back(seeded(u, -1));
  s.t = seeded(x.t, -1);
  for (const auto& gc : m.constraints) {
    const Dual value = evaluate(gc, s);
    r.g.push_back(value.value());
    for (int j = 0; j < n; ++j) r.dg.push_back(value.derivatives()[j]);
  }
  for (const auto& fi : m.forces) {
    const Dual value = evaluate(fi, s);
    r.f.push_back(value.value());
    for (int j = 0; j < n; ++j) r.f_q.push_back(value.derivatives()[j]);
    for (int j = 0; j < n; ++j) r.f_v.push_back(value.derivatives()[n + j]);
  }
  const SymbolValues<double> plain{x.q, x.v, parameter_values(m), x.u, x.t};
  for (const auto& generator : m.symmetries) {
    r.xi.emplace_back();
    for (const auto& component : generator) r.xi.back().push_back(evaluate(component, plain));
  }
  return r;
}

/// Agreement to round-off: every entry within 1e-12 of the largest entry of its block.
void expect_close(const std::vector<double>& actual, const std::vector<double>& expected, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  double scale = 0.0;
  for (const double e : expected) scale = std::max(scale, std::abs(e));
  for (std::size_t i = 0; i < actual.size(); ++i) {
    ASSERT_TRUE(std::isfinite(expected[i])) << what << "[" << i << "]: the reference is not finite";
    EXPECT_LE(std::abs(actual[i] - expected[i]), 1e-12 * scale) << what << "[" << i << "] = " << actual[i]
                                                                 << ", dual numbers give " << expected[i];
  }
}

/// Calls through the table with every output wanted.
struct KernelValues {
  double value = 0.0;
  std::vector<double> l_q, l_v, l_qq, l_qv, l_vv, g, dg, curvature, f, f_q, f_v;
  std::vector<std::vector<double>> xi;
};

KernelValues call_kernels(const mechint_model_kernels& k, const ModelDescription& m, const Point& x) {
  const std::size_t n = m.coordinates.size();
  KernelValues r;
  r.l_q.resize(n);
  r.l_v.resize(n);
  r.l_qq.resize(n * n);
  r.l_qv.resize(n * n);
  r.l_vv.resize(n * n);
  EXPECT_EQ(k.lagrangian(k.context, x.q.data(), x.v.data(), &r.value, r.l_q.data(), r.l_v.data(), r.l_qq.data(),
                         r.l_qv.data(), r.l_vv.data()),
            MECHINT_KERNEL_OK);
  if (!m.constraints.empty()) {
    r.g.resize(m.constraints.size());
    r.dg.resize(m.constraints.size() * n);
    EXPECT_EQ(k.constraints(k.context, x.q.data(), r.g.data(), r.dg.data()), MECHINT_KERNEL_OK);
    r.curvature.resize(n * n);
    EXPECT_EQ(k.constraint_curvature(k.context, x.q.data(), multipliers(m, x).data(), r.curvature.data()),
              MECHINT_KERNEL_OK);
  }
  for (std::size_t i = 0; i < m.symmetries.size(); ++i) {
    r.xi.emplace_back(n);
    EXPECT_EQ(k.symmetry(k.context, static_cast<std::int32_t>(i), x.q.data(), r.xi.back().data()), MECHINT_KERNEL_OK);
  }
  if (!m.forces.empty()) {
    r.f.resize(n);
    r.f_q.resize(n * n);
    r.f_v.resize(n * n);
    EXPECT_EQ(k.forces(k.context, x.q.data(), x.v.data(), x.u.data(), x.t, r.f.data(), r.f_q.data(), r.f_v.data()),
              MECHINT_KERNEL_OK);
  }
  return r;
}

// ---- the models -----------------------------------------------------------------------------------

/// A planar chain of n links in absolute angles, written with definitions.
std::string chain_text(int n) { return pendulum_chain_model_text(n); }

/// The chain of tests/mixed_chain_model.hpp, named "relative-chain".
std::string relative_chain_text(int n) { return mixed_chain_model_text(n, "relative-chain"); }

/// Everything the table holds: a domain, a constraint, a symmetry, forces with a control and t,
/// and powers of every kind. The names are long and unusual so that the source can be searched
/// for them.
const char* const kEverything = R"toml(
name = "everything-model"
description = "a bead near a ring, every kind of output"
coordinates = ["qxalpha", "qybeta", "qzgamma"]
parameters = { pmass = 1.5, pstiff = 2.0, pradius = 0.5, pdamp = 0.1, pexpo = 2.5 }
controls = ["ucontrol"]
lagrangian = """0.5*pmass*(qxalpha_dot^2 + qybeta_dot^2 + qzgamma_dot^2)
  - pstiff*log(qxalpha^2 + qybeta^2 - pradius^2) + 0.1*(qxalpha^2 + qybeta^2)^-1.5
  + 0.01*(qxalpha^2 + qybeta^2)^pexpo + 0.2*sqrt(qxalpha^2 + qybeta^2)^3 - pmass*9.81*qzgamma
  + 0.001*qxalpha^7 + (2 + qybeta^2)^-4"""
constraints = ["qzgamma - 0.2*(qxalpha^2 + qybeta^2)"]
symmetries = [["-qybeta", "qxalpha", "0"]]
forces = ["ucontrol - pdamp*qxalpha_dot*abs(qybeta_dot)", "-pdamp*qybeta_dot + 0.1*sin(t)*max(qxalpha, qybeta)",
          "-pdamp*qzgamma_dot*t^2 + (1 + qxalpha^2)^qybeta_dot + min(qxalpha_dot, qzgamma)"]
domain = ["qxalpha^2 + qybeta^2 - pradius^2"]
[initial]
qxalpha = 1.0
qybeta = 0.2
qzgamma = 0.208
qybeta_dot = 0.5
)toml";

/// Every function of the grammar in one Lagrangian, at a start where all are defined.
const char* const kAllFunctions = R"toml(
name = "all-functions"
coordinates = ["a", "b"]
parameters = { k = 0.3 }
lagrangian = """0.5*(a_dot^2 + b_dot^2) + sin(a)*cos(b) + tan(0.3*a) + asin(0.4*b) + acos(0.3*a)
  + atan(a*b) + atan2(b, a + 3) + sinh(0.2*a)*a_dot + cosh(0.1*b)*b_dot^2 + tanh(a - b) + exp(0.1*a*b_dot)
  + log(2 + a^2) + sqrt(3 + b^2) + abs(a - 0.1)*b_dot + pow(2 + a^2, b) + (1.5 + b^2)^(a_dot*k)
  + min(a, b)*a_dot + max(a*b, 0.2)^2 + 2^a + k^b + a^-2 + (2 + b)^0.5^2"""
[initial]
a = 0.7
b = 0.4
a_dot = 0.3
b_dot = -0.2
)toml";

struct Case {
  std::string label;
  std::string path;  ///< a file, or
  std::string text;  ///< a model text
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const auto& entry : fs::directory_iterator(fs::path(MECHINT_SOURCE_DIR) / "examples" / "models")) {
    if (entry.path().extension() == ".toml") out.push_back({entry.path().stem().string(), entry.path().string(), ""});
  }
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.label < b.label; });
  for (const int n : {2, 5, 10, 20, 30}) out.push_back({"chain-" + std::to_string(n), "", chain_text(n)});
  for (const int n : {3, 24}) out.push_back({"relative-chain-" + std::to_string(n), "", relative_chain_text(n)});
  out.push_back({"everything", "", kEverything});
  out.push_back({"all-functions", "", kAllFunctions});
  return out;
}

ModelDescription load(const Case& c) {
  return c.path.empty() ? parse_model_text(c.text, c.label + ".toml") : read_model_file(c.path);
}

class KernelCodegen : public ::testing::TestWithParam<Case> {};

TEST_P(KernelCodegen, MatchesDualNumbersOnTheExpressionTrees) {
  const ModelDescription m = load(GetParam());
  const CompiledKernels compiled(generate_kernel_source(m));
  ASSERT_TRUE(compiled.ok());
  const std::vector<double> p = parameter_values(m);
  mechint_model_kernels k{};
  ASSERT_EQ(compiled.fill(MECHINT_KERNEL_ABI_VERSION, p, &k), MECHINT_KERNEL_OK);
  const int n = static_cast<int>(m.coordinates.size());
  EXPECT_EQ(k.abi_version, static_cast<std::uint32_t>(MECHINT_KERNEL_ABI_VERSION));
  EXPECT_EQ(k.struct_size, sizeof(mechint_model_kernels));
  EXPECT_EQ(k.dim, n);
  EXPECT_EQ(k.num_constraints, static_cast<int>(m.constraints.size()));
  EXPECT_EQ(k.num_symmetries, static_cast<int>(m.symmetries.size()));
  EXPECT_EQ(k.num_controls, static_cast<int>(m.controls.size()));
  EXPECT_EQ(k.has_forces, m.forces.empty() ? 0 : 1);
  EXPECT_EQ(k.context, p.data());
  ASSERT_NE(k.lagrangian, nullptr);
  EXPECT_EQ(k.constraints != nullptr, !m.constraints.empty());
  EXPECT_EQ(k.constraint_curvature != nullptr, !m.constraints.empty());
  EXPECT_EQ(k.symmetry != nullptr, !m.symmetries.empty());
  EXPECT_EQ(k.forces != nullptr, !m.forces.empty());

  for (const Point& x : random_points(m, 3)) {
    const Reference want = reference(m, x);
    const KernelValues got = call_kernels(k, m, x);
    expect_close({got.value}, {want.value}, "L");
    expect_close(got.l_q, want.l_q, "L_q");
    expect_close(got.l_v, want.l_v, "L_v");
    expect_close(got.l_qq, want.l_qq, "L_qq");
    expect_close(got.l_qv, want.l_qv, "L_qv");
    expect_close(got.l_vv, want.l_vv, "L_vv");
    expect_close(got.g, want.g, "g");
    expect_close(got.dg, want.dg, "Dg");
    expect_close(got.curvature, want.curvature, "Σ λ_c D²g_c");
    for (std::size_t i = 0; i < want.xi.size(); ++i) expect_close(got.xi.at(i), want.xi[i], "xi" + std::to_string(i + 1));
    expect_close(got.f, want.f, "f");
    expect_close(got.f_q, want.f_q, "f_q");
    expect_close(got.f_v, want.f_v, "f_v");

    // Fewer outputs: the same numbers, the others left alone.
    const double untouched = -12345.0;
    double value = untouched;
    std::vector<double> vv(static_cast<std::size_t>(n * n), untouched), lq(static_cast<std::size_t>(n), untouched);
    EXPECT_EQ(k.lagrangian(k.context, x.q.data(), x.v.data(), &value, nullptr, nullptr, nullptr, nullptr, nullptr),
              MECHINT_KERNEL_OK);
    EXPECT_EQ(value, got.value);
    EXPECT_EQ(k.lagrangian(k.context, x.q.data(), x.v.data(), nullptr, nullptr, nullptr, nullptr, nullptr, vv.data()),
              MECHINT_KERNEL_OK);
    EXPECT_EQ(vv, got.l_vv);
    EXPECT_EQ(k.lagrangian(k.context, x.q.data(), x.v.data(), nullptr, lq.data(), nullptr, nullptr, nullptr, nullptr),
              MECHINT_KERNEL_OK);
    EXPECT_EQ(lq, got.l_q);
    if (k.constraints != nullptr) {
      std::vector<double> dg(got.dg.size(), untouched);
      EXPECT_EQ(k.constraints(k.context, x.q.data(), nullptr, dg.data()), MECHINT_KERNEL_OK);
      EXPECT_EQ(dg, got.dg);
    }
    if (k.forces != nullptr) {
      std::vector<double> f_v(got.f_v.size(), untouched);
      EXPECT_EQ(k.forces(k.context, x.q.data(), x.v.data(), x.u.data(), x.t, nullptr, nullptr, f_v.data()),
                MECHINT_KERNEL_OK);
      EXPECT_EQ(f_v, got.f_v);
    }
    if (k.symmetry != nullptr) {
      EXPECT_EQ(k.symmetry(k.context, 0, x.q.data(), nullptr), MECHINT_KERNEL_OK);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, KernelCodegen, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.label;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// ---- the domain, the source, the table ----------------------------------------------------------

/// Every kernel refuses a point outside the domain, and the domain kernel gives the inequality's
/// value there and inside (the step check names the one left and its value from it): the expression
/// tree's value.
TEST(KernelCodegenDomain, EveryKernelRefusesAPointOutsideTheDomain) {
  const ModelDescription m = parse_model_text(kEverything, "everything.toml");
  const CompiledKernels compiled(generate_kernel_source(m));
  ASSERT_TRUE(compiled.ok());
  const std::vector<double> p = parameter_values(m);
  mechint_model_kernels k{};
  ASSERT_EQ(compiled.fill(MECHINT_KERNEL_ABI_VERSION, p, &k), MECHINT_KERNEL_OK);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double r0 = p[2];  // pradius: the domain is x^2 + y^2 > r0^2
  struct Where {
    std::vector<double> q;
    int expected;
  };
  const std::vector<Where> points = {{{1.0, 0.0, 0.2}, MECHINT_KERNEL_OK},
                                     {{0.5 * r0, 0.0, 0.2}, MECHINT_KERNEL_OUTSIDE_DOMAIN},
                                     {{r0, 0.0, 0.2}, MECHINT_KERNEL_OUTSIDE_DOMAIN},  // d = 0 is outside
                                     {{nan, 0.0, 0.2}, MECHINT_KERNEL_OUTSIDE_DOMAIN}};
  const std::vector<double> v = {0.1, 0.2, 0.3}, u = {0.5};
  ASSERT_EQ(k.num_domain, static_cast<int32_t>(m.domain.size()));
  ASSERT_NE(k.domain, nullptr);
  for (const Where& w : points) {
    std::vector<double> values(m.domain.size(), -1.0);
    EXPECT_EQ(k.domain(k.context, w.q.data(), values.data()), MECHINT_KERNEL_OK);
    const SymbolValues<double> symbols{w.q, v, p, u, 0.5};
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double expected = evaluate(m.domain[i], symbols);
      if (std::isnan(expected))
        EXPECT_TRUE(std::isnan(values[i]));
      else
        EXPECT_NEAR(values[i], expected, 1e-14 * (1.0 + std::abs(expected))) << w.q[0];
    }
    EXPECT_EQ(values[0] > 0.0, w.expected == MECHINT_KERNEL_OK) << w.q[0];
    std::vector<double> out(9);
    EXPECT_EQ(k.lagrangian(k.context, w.q.data(), v.data(), out.data(), nullptr, nullptr, nullptr, nullptr, nullptr),
              w.expected);
    EXPECT_EQ(k.lagrangian(k.context, w.q.data(), v.data(), nullptr, nullptr, nullptr, nullptr, nullptr, out.data()),
              w.expected);
    EXPECT_EQ(k.constraints(k.context, w.q.data(), out.data(), out.data()), w.expected);
    EXPECT_EQ(k.symmetry(k.context, 0, w.q.data(), out.data()), w.expected);
    EXPECT_EQ(k.forces(k.context, w.q.data(), v.data(), u.data(), 0.5, out.data(), nullptr, nullptr), w.expected);
  }
  // An index that names no generator: the model is not defined there.
  std::vector<double> xi(3);
  EXPECT_EQ(k.symmetry(k.context, 1, points[0].q.data(), xi.data()), MECHINT_KERNEL_OUTSIDE_DOMAIN);
  EXPECT_EQ(k.symmetry(k.context, -1, points[0].q.data(), xi.data()), MECHINT_KERNEL_OUTSIDE_DOMAIN);
}

/// A model without a domain has no domain kernel (model_kernels.h: num_domain 0, NULL).
TEST(KernelCodegenDomain, AModelWithoutADomainHasNoDomainKernel) {
  const ModelDescription plain = parse_model_text(chain_text(2), "chain.toml");
  ASSERT_TRUE(plain.domain.empty());
  const CompiledKernels without(generate_kernel_source(plain));
  ASSERT_TRUE(without.ok());
  mechint_model_kernels none{};
  ASSERT_EQ(without.fill(MECHINT_KERNEL_ABI_VERSION, parameter_values(plain), &none), MECHINT_KERNEL_OK);
  EXPECT_EQ(none.num_domain, 0);
  EXPECT_EQ(none.domain, nullptr);
}

TEST(KernelCodegenSource, IsWarningFreeC99WithoutTheFilesText) {
  const ModelDescription m = parse_model_text(kEverything, "everything.toml");
  const std::string source = generate_kernel_source(m);
  for (const std::string name : {"everything-model", "a bead near a ring", "qxalpha", "qybeta", "qzgamma", "pmass",
                                  "pstiff", "pradius", "pdamp", "pexpo", "ucontrol"})
    EXPECT_EQ(source.find(name), std::string::npos) << name;
  EXPECT_EQ(source.find("#include <mechint"), std::string::npos);
  EXPECT_NE(source.find("static double mi_powi("), std::string::npos);  // x^7: its helper is checked too
  const CompiledKernels compiled(source, {"-Wall", "-Wextra", "-pedantic", "-Werror"});
  EXPECT_TRUE(compiled.ok());
  EXPECT_EQ(compiled.compiler_messages(), "");
  // The same source is C++ too (the exported name unmangled).
  const CompiledKernels as_cxx(source, {"-Wall", "-Wextra", "-Werror"}, {"/usr/bin/c++", "-x", "c++", "-std=c++20"});
  EXPECT_TRUE(as_cxx.ok());
}

TEST(KernelCodegenSource, HessianOperationsAreComputedOnlyWhenAHessianIsAsked) {
  // In the Lagrangian kernel, the Hessian's own temporaries follow the test of its outputs, so that
  // asking for the value or the gradient does not compute them.
  const std::string source = generate_kernel_source(parse_model_text(chain_text(5), "chain.toml"));
  const std::size_t begin = source.find("static int mi_lagrangian(");
  const std::size_t hessian = source.find("if (l_qq || l_qv || l_vv) {", begin);
  const std::size_t end = source.find("\n}\n", begin);
  ASSERT_NE(hessian, std::string::npos);
  ASSERT_LT(hessian, end);
  const auto temporaries = [&](std::size_t from, std::size_t to) {
    std::size_t count = 0;
    for (std::size_t at = source.find("const double t", from); at < to; at = source.find("const double t", at + 1)) ++count;
    return count;
  };
  const std::size_t before = temporaries(begin, hessian), after = temporaries(hessian, end);
  EXPECT_GT(before, 0u);
  EXPECT_GT(after, before) << "the Hessian blocks of a chain hold most of the work";
}

/// How many times `token` occurs in the source of the Lagrangian kernel.
std::size_t count_in_lagrangian_kernel(const std::string& source, const std::string& token) {
  const std::size_t begin = source.find("static int mi_lagrangian("), end = source.find("\n}\n", begin);
  std::size_t count = 0;
  for (std::size_t at = source.find(token, begin); at < end; at = source.find(token, at + 1)) ++count;
  return count;
}

TEST(KernelCodegenSource, ADenominatorCostsOneDivisionWhateverDerivativesShareIt) {
  // Kepler's μ/√(x² + y²): its gradient and Hessian divide by √(x² + y²) (the quotient's and the
  // root's derivatives) again and again; multiplied by one reciprocal, the Lagrangian kernel divides
  // twice, μ/√ and 1/√ (it took 11 divisions when each derivative divided). Written as a negative
  // power, μ(x² + y²)^(−1/2), its derivatives multiply by 1/(x² + y²) instead of taking the powers
  // −3/2 and −5/2: two divisions and one root (it took 3 and 3). The two forms' L, gradient and
  // Hessian agree to round-off; each against dual numbers on the trees is
  // KernelCodegen.MatchesDualNumbersOnTheExpressionTrees (eccentric-orbit, and a^-2 in all-functions).
  std::ostringstream file_text;
  file_text << std::ifstream(MECHINT_SOURCE_DIR "/examples/models/eccentric-orbit.toml").rdbuf();
  const std::string text = file_text.str();
  const std::string quotient = "mu/sqrt(x^2 + y^2)";
  ASSERT_NE(text.find(quotient), std::string::npos);
  std::string power_text = text;
  power_text.replace(power_text.find(quotient), quotient.size(), "mu*(x^2 + y^2)^(-0.5)");
  const ModelDescription by_quotient = parse_model_text(text, "quotient.toml");
  const ModelDescription by_power = parse_model_text(power_text, "power.toml");
  const std::string quotient_source = generate_kernel_source(by_quotient), power_source = generate_kernel_source(by_power);
  EXPECT_EQ(count_in_lagrangian_kernel(quotient_source, " / "), 2u);
  EXPECT_EQ(count_in_lagrangian_kernel(power_source, " / "), 2u);
  EXPECT_EQ(count_in_lagrangian_kernel(power_source, "sqrt("), 1u);

  const CompiledKernels a(quotient_source), b(power_source);
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<double> p = parameter_values(by_quotient);
  mechint_model_kernels ka{}, kb{};
  ASSERT_EQ(a.fill(MECHINT_KERNEL_ABI_VERSION, p, &ka), MECHINT_KERNEL_OK);
  ASSERT_EQ(b.fill(MECHINT_KERNEL_ABI_VERSION, p, &kb), MECHINT_KERNEL_OK);
  for (const Point& x : random_points(by_quotient, 20)) {
    const KernelValues va = call_kernels(ka, by_quotient, x), vb = call_kernels(kb, by_power, x);
    expect_close({vb.value}, {va.value}, "L");
    expect_close(vb.l_q, va.l_q, "L_q");
    expect_close(vb.l_qq, va.l_qq, "L_qq");
  }
}

TEST(KernelCodegenSource, AChainsKernelsGrowAsTheSquareOfItsLinks) {
  // A chain written with definitions has O(n) nodes; its gradient by reverse accumulation has O(n)
  // and its Hessian O(n²) (one suffix sum per mass, differentiated once per variable). Forward
  // derivatives of the Lagrangian's n terms gave O(n²) and O(n³): 37 000 temporaries at 30 links.
  const auto temporaries = [](int links) {
    const std::string source = generate_kernel_source(parse_model_text(chain_text(links), "chain.toml"));
    const std::size_t begin = source.find("static int mi_lagrangian("), end = source.find("\n}\n", begin);
    std::size_t count = 0;
    for (std::size_t at = source.find("const double t", begin); at < end; at = source.find("const double t", at + 1)) ++count;
    return static_cast<double>(count);
  };
  const double t10 = temporaries(10), t20 = temporaries(20), t30 = temporaries(30);
  // From 10 to 20 links 4x for O(n²), 8x for O(n³); from 20 to 30, 2.25x and 3.4x.
  EXPECT_LT(t20 / t10, 4.6) << t10 << " " << t20;
  EXPECT_LT(t30 / t20, 2.6) << t20 << " " << t30;
}

TEST(KernelCodegenTable, RefusesAnotherAbiVersionOrParameterCount) {
  const ModelDescription m = read_model_file(MECHINT_SOURCE_DIR "/examples/models/cart-pole.toml");
  const CompiledKernels compiled(generate_kernel_source(m));
  ASSERT_TRUE(compiled.ok());
  std::vector<double> p = parameter_values(m);
  mechint_model_kernels k{};
  EXPECT_NE(compiled.fill(MECHINT_KERNEL_ABI_VERSION + 1, p, &k), MECHINT_KERNEL_OK);
  p.push_back(1.0);
  EXPECT_NE(compiled.fill(MECHINT_KERNEL_ABI_VERSION, p, &k), MECHINT_KERNEL_OK);
  p.pop_back();
  EXPECT_EQ(compiled.fill(MECHINT_KERNEL_ABI_VERSION, p, &k), MECHINT_KERNEL_OK);
  // The context is the parameter array itself: a changed value is seen by the next call.
  const std::vector<double> q = {0.1, 0.2}, v = {0.3, 0.4};
  double before = 0.0, after = 0.0;
  k.lagrangian(k.context, q.data(), v.data(), &before, nullptr, nullptr, nullptr, nullptr, nullptr);
  p[3] *= 2.0;  // g
  k.lagrangian(k.context, q.data(), v.data(), &after, nullptr, nullptr, nullptr, nullptr, nullptr);
  EXPECT_NE(before, after);
}

TEST(KernelCodegenNonholonomic, KnifeEdgeMatchesItsFormula) {
  // examples/models/knife-edge.toml: a(q)·v = sin(th) x_dot − cos(th) y_dot, so A = [sin th, −cos th, 0]
  // and ∂(A w)/∂q = [0, 0, cos th w_x + sin th w_y], written out here apart from the generator.
  const ModelDescription m = read_model_file(MECHINT_SOURCE_DIR "/examples/models/knife-edge.toml");
  const CompiledKernels compiled(generate_kernel_source(m));
  ASSERT_TRUE(compiled.ok());
  const std::vector<double> p = parameter_values(m);
  mechint_model_kernels k{};
  ASSERT_EQ(compiled.fill(MECHINT_KERNEL_ABI_VERSION, p, &k), MECHINT_KERNEL_OK);
  ASSERT_EQ(k.num_nonholonomic, 1);
  ASSERT_NE(k.nonholonomic, nullptr);
  const std::vector<double> q = {0.3, -1.2, 0.7}, w = {0.4, -0.9, 2.5};
  std::vector<double> a(3, -1.0), aw_q(3, -1.0);
  ASSERT_EQ(k.nonholonomic(k.context, q.data(), w.data(), a.data(), aw_q.data()), MECHINT_KERNEL_OK);
  EXPECT_NEAR(a[0], std::sin(0.7), 1e-15);
  EXPECT_NEAR(a[1], -std::cos(0.7), 1e-15);
  EXPECT_EQ(a[2], 0.0);
  EXPECT_EQ(aw_q[0], 0.0);
  EXPECT_EQ(aw_q[1], 0.0);
  EXPECT_NEAR(aw_q[2], std::cos(0.7) * 0.4 + std::sin(0.7) * -0.9, 1e-15);
  // One output alone: the same numbers.
  std::vector<double> a_only(3, -1.0);
  ASSERT_EQ(k.nonholonomic(k.context, q.data(), w.data(), a_only.data(), nullptr), MECHINT_KERNEL_OK);
  EXPECT_EQ(a_only, a);
  // A model without the field has none.
  const ModelDescription cart = read_model_file(MECHINT_SOURCE_DIR "/examples/models/cart-pole.toml");
  const CompiledKernels plain(generate_kernel_source(cart));
  ASSERT_TRUE(plain.ok());
  const std::vector<double> pc = parameter_values(cart);
  mechint_model_kernels kc{};
  ASSERT_EQ(plain.fill(MECHINT_KERNEL_ABI_VERSION, pc, &kc), MECHINT_KERNEL_OK);
  EXPECT_EQ(kc.num_nonholonomic, 0);
  EXPECT_EQ(kc.nonholonomic, nullptr);
}

// ---- optimal control's kernels (lagrangian_third, forces_second) --------------------------------

/// Two coordinates, two controls, L with mixed q–q̇ terms and forces nonlinear in the controls: what
/// the third derivatives of DMOC's exact Hessian meet.
const char* const kControlledMixed = R"toml(
name = "controlled-mixed"
coordinates = ["a", "b"]
parameters = { k = 0.3, c = 0.2 }
controls = ["fa", "fb"]
lagrangian = """0.5*(2 + cos(b))*a_dot^2 + 0.5*b_dot^2*(1 + 0.1*a^2) + a_dot*b_dot*sin(a - b) - k*(a^2 + b^4)
  + exp(0.1*a*b_dot) + (1.5 + b^2)^(a_dot*k) + atan2(b, a + 3)*a_dot"""
forces = ["fa*cos(b) - c*a_dot*abs(b_dot) + fb^2*a", "fb*fa - c*b_dot^3 + sin(t)*a*fa + tanh(a_dot*fb)"]
[initial]
a = 0.4
b = -0.3
a_dot = 0.2
b_dot = 0.1
)toml";

/// Five-point central difference of `f` (a vector function of one step ε) at 0: error O(ε⁴).
template <class F>
std::vector<double> five_point(F&& f, double eps) {
  const std::vector<double> p2 = f(2 * eps), p1 = f(eps), m1 = f(-eps), m2 = f(-2 * eps);
  std::vector<double> d(p1.size());
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = (-p2[i] + 8 * p1[i] - 8 * m1[i] + m2[i]) / (12 * eps);
  return d;
}

/// Agreement with a difference quotient: within `tolerance` of the block's largest entry, or of 1e−2
/// when all are smaller (a block that vanishes, where the differences leave round-off of ≈ 1e−14).
void expect_near_block(const std::vector<double>& actual, const std::vector<double>& expected, double tolerance,
                       const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  double scale = 1e-2;
  for (const double e : expected) scale = std::max(scale, std::abs(e));
  for (std::size_t i = 0; i < actual.size(); ++i)
    EXPECT_LE(std::abs(actual[i] - expected[i]), tolerance * scale) << what << "[" << i << "] = " << actual[i]
                                                                     << ", differences give " << expected[i];
}

class KernelCodegenOptimalControl : public ::testing::TestWithParam<Case> {};

// The third derivatives are the derivative of the Hessian blocks (checked against dual numbers
// above) along the direction, and the forces' Hessian that of their Jacobians: five-point
// differences of the generated second derivatives, exact to O(ε⁴) ≈ 1e−12 relative at ε = 1e−3.
TEST_P(KernelCodegenOptimalControl, ThirdDerivativesAreTheDerivativesOfTheSecond) {
  const ModelDescription m = load(GetParam());
  ASSERT_TRUE(optimal_control_applies(m));
  // The runs' plugin leaves them out.
  const CompiledKernels runs(generate_kernel_source(m));
  ASSERT_TRUE(runs.ok());
  const std::vector<double> p = parameter_values(m);
  mechint_model_kernels without{};
  ASSERT_EQ(runs.fill(MECHINT_KERNEL_ABI_VERSION, p, &without), MECHINT_KERNEL_OK);
  EXPECT_EQ(without.lagrangian_third, nullptr);
  EXPECT_EQ(without.forces_second, nullptr);

  const CompiledKernels compiled(generate_kernel_source(m, /*with_optimal_control=*/true), {"-Wall", "-Wextra", "-Werror"});
  ASSERT_TRUE(compiled.ok()) << compiled.compiler_messages();
  mechint_model_kernels k{};
  ASSERT_EQ(compiled.fill(MECHINT_KERNEL_ABI_VERSION, p, &k), MECHINT_KERNEL_OK);
  ASSERT_NE(k.lagrangian_third, nullptr);
  ASSERT_NE(k.forces_second, nullptr);
  const int n = static_cast<int>(m.coordinates.size()), nm = static_cast<int>(m.controls.size());
  const int w = 2 * n, s = 2 * n + nm;
  std::mt19937_64 random(77);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const double eps = 1e-3;
  for (const Point& x : random_points(m, 3)) {
    std::vector<double> d(static_cast<std::size_t>(w)), mu(static_cast<std::size_t>(n));
    for (double& di : d) di = uniform(random);
    for (double& mi : mu) mi = uniform(random);
    // lagrangian_third(q, v, d) = d/dε [∇²L](z + εd), blocks ordered q then v.
    std::vector<double> third(static_cast<std::size_t>(w * w));
    ASSERT_EQ(k.lagrangian_third(k.context, x.q.data(), x.v.data(), d.data(), d.data() + n, third.data()), MECHINT_KERNEL_OK);
    const auto hessian_at = [&](double e) {
      std::vector<double> q = x.q, v = x.v, qq(static_cast<std::size_t>(n * n)), qv(qq.size()), vv(qq.size());
      for (int i = 0; i < n; ++i) q[i] += e * d[i], v[i] += e * d[n + i];
      EXPECT_EQ(k.lagrangian(k.context, q.data(), v.data(), nullptr, nullptr, nullptr, qq.data(), qv.data(), vv.data()),
                MECHINT_KERNEL_OK);
      std::vector<double> h(static_cast<std::size_t>(w * w));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          h[i * w + j] = qq[i * n + j];
          h[i * w + n + j] = qv[i * n + j];
          h[(n + j) * w + i] = qv[i * n + j];
          h[(n + i) * w + n + j] = vv[i * n + j];
        }
      return h;
    };
    expect_near_block(third, five_point(hessian_at, eps), 1e-8, "lagrangian_third");

    // forces_second: f_u = ∂f/∂u, and row b of the Hessian of μ·f the derivative along s_b of μ·[f_q f_v f_u].
    std::vector<double> f_u(static_cast<std::size_t>(n * nm)), hessian(static_cast<std::size_t>(s * s));
    ASSERT_EQ(k.forces_second(k.context, x.q.data(), x.v.data(), x.u.data(), x.t, mu.data(), f_u.data(), hessian.data()),
              MECHINT_KERNEL_OK);
    const auto shifted = [&](int b, double e, std::vector<double>& q, std::vector<double>& v, std::vector<double>& u) {
      q = x.q, v = x.v, u = x.u;
      (b < n ? q[b] : b < 2 * n ? v[b - n] : u[b - 2 * n]) += e;
    };
    for (int j = 0; j < nm; ++j) {
      const auto f_at = [&](double e) {
        std::vector<double> q, v, u, f(static_cast<std::size_t>(n));
        shifted(2 * n + j, e, q, v, u);
        EXPECT_EQ(k.forces(k.context, q.data(), v.data(), u.data(), x.t, f.data(), nullptr, nullptr), MECHINT_KERNEL_OK);
        return f;
      };
      std::vector<double> column(static_cast<std::size_t>(n));
      for (int i = 0; i < n; ++i) column[i] = f_u[i * nm + j];
      expect_near_block(column, five_point(f_at, eps), 1e-8, "f_u column " + std::to_string(j));
    }
    for (int b = 0; b < s; ++b) {
      const auto weighted_gradient_at = [&](double e) {
        std::vector<double> q, v, u, f(static_cast<std::size_t>(n)), f_q(static_cast<std::size_t>(n * n)), f_v(f_q.size()),
            fu(static_cast<std::size_t>(n * nm));
        shifted(b, e, q, v, u);
        EXPECT_EQ(k.forces(k.context, q.data(), v.data(), u.data(), x.t, f.data(), f_q.data(), f_v.data()), MECHINT_KERNEL_OK);
        EXPECT_EQ(k.forces_second(k.context, q.data(), v.data(), u.data(), x.t, nullptr, fu.data(), nullptr), MECHINT_KERNEL_OK);
        std::vector<double> g(static_cast<std::size_t>(s), 0.0);
        for (int i = 0; i < n; ++i) {
          for (int j = 0; j < n; ++j) g[j] += mu[i] * f_q[i * n + j], g[n + j] += mu[i] * f_v[i * n + j];
          for (int j = 0; j < nm; ++j) g[2 * n + j] += mu[i] * fu[i * nm + j];
        }
        return g;
      };
      const std::vector<double> row(hessian.begin() + b * s, hessian.begin() + (b + 1) * s);
      expect_near_block(row, five_point(weighted_gradient_at, eps), 1e-8, "Hessian of mu.f, row " + std::to_string(b));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, KernelCodegenOptimalControl,
                         ::testing::Values(Case{"damped_cart_pole", std::string(MECHINT_SOURCE_DIR) + "/examples/models/damped-cart-pole.toml", ""},
                                           Case{"controlled_all_functions",
                                                std::string(MECHINT_SOURCE_DIR) + "/tests/model_files/good/controlled-all-functions.toml", ""},
                                           Case{"controlled_mixed", "", kControlledMixed}),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.label; });

// ---- vi-trapezoid's explicit step, generated for separable models ---------------------------------

/// Separable with every term of the full form: M = [[m, 0.3], [0.3, 0.5]] (not diagonal), b ≠ 0.
constexpr const char* kFullMassSeparable = R"(name = "full-mass"
coordinates = ["x", "y"]
parameters = { m = 2.0, k = 1.5 }
lagrangian = "0.5*(m*x_dot^2 + 0.5*y_dot^2) + 0.3*x_dot*y_dot + 0.1*x_dot - 0.2*y_dot - 0.5*k*(x^2 + y^2) - 0.25*x^4"
h = 0.02

[initial]
x = 0.4
y_dot = 0.3
)";

/// Separable with a diagonal M ≠ I and no linear term.
constexpr const char* kDiagonalMassSeparable = R"(name = "diagonal-mass"
coordinates = ["x", "y", "z"]
parameters = { m = 3.0 }
lagrangian = "0.5*(m*x_dot^2 + 0.25*y_dot^2 + z_dot^2) - 0.5*(x^2 + 4*y^2 + z^2) - x^2*y + 0.1*z^3"
h = 0.02

[initial]
x = 0.3
z = -0.2
y_dot = 0.2
)";

/// Not separable: a constant gyroscopic term ω(x ẏ − y ẋ) makes L_qv constant but not zero, and L_q
/// depends on the velocity.
constexpr const char* kGyroscopic = R"toml(name = "gyroscopic"
coordinates = ["x", "y"]
parameters = { w = 0.7 }
lagrangian = "0.5*(x_dot^2 + y_dot^2) + w*(x*y_dot - y*x_dot) - 0.5*(x^2 + y^2)"
h = 0.02

[initial]
x = 0.4
y_dot = 0.3
)toml";

TEST(KernelCodegenSeparableStep, GeneratedExactlyWhereTheMethodsStepExplicitlyAndGivesTheirBits) {
  std::vector<std::pair<std::string, ModelDescription>> models;
  for (const auto& entry : fs::directory_iterator(fs::path(MECHINT_SOURCE_DIR) / "examples" / "models"))
    models.emplace_back(entry.path().filename().string(), read_model_file(entry.path().string()));
  models.emplace_back("full-mass", parse_model_text(kFullMassSeparable, "full-mass"));
  models.emplace_back("diagonal-mass", parse_model_text(kDiagonalMassSeparable, "diagonal-mass"));
  models.emplace_back("gyroscopic", parse_model_text(kGyroscopic, "gyroscopic"));
  int generated = 0;
  for (const auto& [label, m] : models) {
    SCOPED_TRACE(label);
    CompiledKernels k(generate_kernel_source(m));
    ASSERT_TRUE(k.ok());
    auto parameters = std::make_shared<std::vector<double>>(parameter_values(m));
    mechint_model_kernels table{};
    ASSERT_EQ(k.fill(MECHINT_KERNEL_ABI_VERSION, *parameters, &table), 0);
    const bool steps_itself = table.separable_step != nullptr;
    // The methods' explicit path covers unconstrained, unforced models without velocity constraints.
    if (!m.constraints.empty() || !m.forces.empty() || !m.nonholonomic.empty()) {
      EXPECT_FALSE(steps_itself);
      continue;
    }
    const auto model = std::make_shared<mechint::kernel::KernelModel>(table, parameters);
    const Eigen::Map<const Eigen::VectorXd> q0(m.initial_q.data(), static_cast<Eigen::Index>(m.initial_q.size()));
    const Eigen::Map<const Eigen::VectorXd> v0(m.initial_v.data(), static_cast<Eigen::Index>(m.initial_v.size()));
    const double h = m.h.value_or(0.01);
    const auto trapezoid = [&](bool model_step) {
      mechint::StepCheckOptions unchecked;  // the model's own step is taken with the check off only
      unchecked.enabled = false;
      auto vi = std::make_unique<mechint::kernel::KernelGalerkinIntegrator>(
          *model, mechint::kernel::lobatto_tableau(2), h, mechint::kernel::composition_named("kahan-li6"),
          mechint::NewtonOptions{}, unchecked);
      vi->allow_model_explicit_steps(model_step);
      vi->start_from_velocity(q0, v0);
      return vi;
    };
    auto own = trapezoid(true), methods = trapezoid(false);
    // The symbolic test (L_vv and L_qv constant) and the methods' numerical one at the start agree.
    EXPECT_EQ(steps_itself, methods->explicit_steps());
    EXPECT_EQ(own->model_takes_explicit_steps(), steps_itself);
    if (!steps_itself) continue;
    ++generated;
    for (int i = 0; i < 300; ++i) {
      own->step(), methods->step();
      ASSERT_EQ(std::memcmp(own->q().data(), methods->q().data(), sizeof(double) * own->q().size()), 0) << "step " << i;
      ASSERT_EQ(std::memcmp(own->p().data(), methods->p().data(), sizeof(double) * own->p().size()), 0) << "step " << i;
    }
    EXPECT_GT((own->q() - q0).norm(), 1e-3);
  }
  // eccentric-orbit, henon-heiles and figure-eight among the examples, and the two separable ones above.
  EXPECT_GE(generated, 5);
}

TEST(KernelCodegenSeparableStep, AnEndOutsideTheDomainWritesNothing) {
  // eccentric-orbit.toml declares x² + y² > 0. With h = 1/2, q0 = (1/2, 0), p0 = (−1, 0) and f0 = 0
  // the drift lands on the centre exactly: q1 = q0 + h p0 = 0.
  const ModelDescription m = read_model_file(MECHINT_SOURCE_DIR "/examples/models/eccentric-orbit.toml");
  ASSERT_FALSE(m.domain.empty());
  CompiledKernels k(generate_kernel_source(m));
  ASSERT_TRUE(k.ok());
  const std::vector<double> parameters = parameter_values(m);
  mechint_model_kernels t{};
  ASSERT_EQ(k.fill(MECHINT_KERNEL_ABI_VERSION, parameters, &t), 0);
  expect_step_onto_the_origin_writes_nothing(t);
  // A step that stays inside writes all four: the drift's q1 = q0 + h (p0 + h/2 f0) exactly.
  const double h = 0.5, q0[2] = {0.5, 0.0}, f0[2] = {0.0, 0.0}, p_in[2] = {0.0, 1.0};
  double q1[2], v[2], f1[2], p1[2];
  ASSERT_EQ(t.separable_step(t.context, MECHINT_MASS_UNIT, nullptr, nullptr, h, q0, p_in, f0, q1, v, f1, p1),
            MECHINT_KERNEL_OK);
  EXPECT_EQ(q1[0], 0.5);
  EXPECT_EQ(q1[1], 0.5);
  EXPECT_EQ(v[1], 1.0);
}

}  // namespace
