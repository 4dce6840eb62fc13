// The midpoint rule's discrete derivatives that the generated kernels of a large model supply
// themselves (src/model_file/kernel_codegen.cpp, discrete_midpoint_function; model_kernels.h,
// discrete_lagrangian): D1 Ld and D2 Ld bit for bit what the methods compose from the Lagrangian
// kernel at the rule's point (kernel/discrete_rules.cpp), D12 Ld the composed h/4 L_qq + ½ L_qv −
// ½ L_qvᵀ − L_vv/h to round-off; any subset of the outputs gives the same numbers, another rule is
// refused, the source is warning-free C99. Small models (every example of examples/models/) and
// models with forces supply no rule: the methods compose them from L as before, with the same
// numbers.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "app/child_process.hpp"
#include "mechint/kernel/model_kernels.h"
#include "model_file/chain_model_text.hpp"
#include "model_file/kernel_codegen.hpp"
#include "model_file/model_file.hpp"
#include "mixed_chain_model.hpp"

namespace {

namespace fs = std::filesystem;
using namespace mechint::model_file;

/// The generated source compiled as mechint's loader compiles it, into a private directory, and loaded.
class Compiled {
 public:
  explicit Compiled(const std::string& source, const std::vector<std::string>& extra_flags = {}) {
    std::string pattern = (fs::temp_directory_path() / "mechint-step-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp failed";
      return;
    }
    dir_ = pattern;
    const std::string c = (dir_ / "kernels.c").string(), so = (dir_ / "kernels.so").string(),
                      log = (dir_ / "cc.log").string();
    std::ofstream(c, std::ios::binary) << source;
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
      ADD_FAILURE() << "cannot create " << log;
      return;
    }
    std::vector<std::string> argv{"/usr/bin/cc", "-std=c99", "-O1", "-shared", "-fPIC", "-fvisibility=hidden"};
    argv.insert(argv.end(), extra_flags.begin(), extra_flags.end());
    argv.insert(argv.end(), {"-o", so, c, "-lm"});
    const auto result = mechint::app::run_program(argv, mechint::app::ChildOutput::file(fd));
    ::close(fd);
    std::stringstream messages;
    messages << std::ifstream(log).rdbuf();
    messages_ = messages.str();
    if (!result.succeeded()) {
      ADD_FAILURE() << "the C compiler failed:\n" << messages_;
      return;
    }
    handle_ = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ != nullptr) fill_ = reinterpret_cast<mechint_fill_kernels_fn>(::dlsym(handle_, MECHINT_FILL_KERNELS_SYMBOL));
    if (fill_ == nullptr) ADD_FAILURE() << "cannot load the kernels";
  }
  ~Compiled() {
    if (handle_ != nullptr) ::dlclose(handle_);
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }
  Compiled(const Compiled&) = delete;
  Compiled& operator=(const Compiled&) = delete;

  bool ok() const { return fill_ != nullptr; }
  const std::string& messages() const { return messages_; }
  mechint_model_kernels fill(const std::vector<double>& parameters) const {
    mechint_model_kernels k{};
    EXPECT_EQ(fill_(MECHINT_KERNEL_ABI_VERSION, parameters.data(), static_cast<std::int32_t>(parameters.size()), &k), 0);
    return k;
  }

 private:
  fs::path dir_;
  void* handle_ = nullptr;
  mechint_fill_kernels_fn fill_ = nullptr;
  std::string messages_;
};

std::vector<double> parameter_values(const ModelDescription& m) {
  std::vector<double> p;
  for (const auto& x : m.parameters) p.push_back(x.value);
  return p;
}

/// The chain of tests/mixed_chain_model.hpp, named "mixed-chain".
std::string mixed_chain_text(int n) { return mixed_chain_model_text(n, "mixed-chain"); }

struct Case {
  std::string label, text;
};

std::vector<Case> large_models() {
  return {{"joint-angles-30", relative_chain_model_text(30)},
          {"absolute-angles-30", pendulum_chain_model_text(30)},
          {"mixed-24", mixed_chain_text(24)}};
}

/// D1, D2 and D12 of the midpoint rule as kernel/discrete_rules.cpp composes them from L's kernel.
struct Discrete {
  std::vector<double> d1, d2, d12;
};

Discrete composed(const mechint_model_kernels& k, double h, const std::vector<double>& q0, const std::vector<double>& q1) {
  const int n = k.dim;
  const auto size = static_cast<std::size_t>(n);
  std::vector<double> point(size), velocity(size), l_q(size), l_v(size), qq(size * size), qv(size * size), vv(size * size);
  for (std::size_t i = 0; i < size; ++i) {
    point[i] = 0.5 * (q0[i] + q1[i]);
    velocity[i] = (q1[i] - q0[i]) / h;
  }
  EXPECT_EQ(k.lagrangian(k.context, point.data(), velocity.data(), nullptr, l_q.data(), l_v.data(), qq.data(), qv.data(),
                         vv.data()),
            MECHINT_KERNEL_OK);
  Discrete d{std::vector<double>(size), std::vector<double>(size), std::vector<double>(size * size)};
  for (std::size_t i = 0; i < size; ++i) {
    d.d1[i] = 0.5 * h * l_q[i] - l_v[i];
    d.d2[i] = 0.5 * h * l_q[i] + l_v[i];
  }
  const double c = 0.25 * h;
  for (std::size_t i = 0; i < size; ++i)
    for (std::size_t j = 0; j < size; ++j) {
      const std::size_t ij = i * size + j, ji = j * size + i;
      d.d12[ij] = c * qq[ij] + 0.5 * qv[ij] - 0.5 * qv[ji] - vv[ij] / h;
    }
  return d;
}

class ModelFileStepMidpoint : public ::testing::TestWithParam<Case> {};

TEST_P(ModelFileStepMidpoint, SuppliedRuleGivesTheComposedResidualAndMomentumBitForBitAndItsJacobian) {
  const ModelDescription m = parse_model_text(GetParam().text, GetParam().label + ".toml");
  const std::string source = generate_kernel_source(m);
  const Compiled compiled(source, {"-Wall", "-Wextra", "-pedantic", "-Werror"});
  ASSERT_TRUE(compiled.ok());
  EXPECT_EQ(compiled.messages(), "");
  const std::vector<double> p = parameter_values(m);
  const mechint_model_kernels k = compiled.fill(p);
  ASSERT_EQ(k.discrete_rules, 1u << MECHINT_RULE_MIDPOINT);
  ASSERT_NE(k.discrete_lagrangian, nullptr);
  EXPECT_EQ(k.discrete_forces, nullptr);
  EXPECT_EQ(k.own_discrete_rules, 0u);
  EXPECT_EQ(k.discrete_step, nullptr);
  const int n = k.dim;
  const auto size = static_cast<std::size_t>(n);

  std::mt19937_64 random(20261207);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (const double h : {0.01, 0.1, 0.37}) {
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<double> q0(size), q1(size);
      for (std::size_t i = 0; i < size; ++i) {
        q0[i] = m.initial_q[i] + 0.5 * uniform(random);
        q1[i] = q0[i] + h * uniform(random);
      }
      const Discrete want = composed(k, h, q0, q1);
      Discrete got{std::vector<double>(size), std::vector<double>(size), std::vector<double>(size * size)};
      ASSERT_EQ(k.discrete_lagrangian(k.context, MECHINT_RULE_MIDPOINT, h, q0.data(), q1.data(), got.d1.data(),
                                      got.d2.data(), got.d12.data()),
                MECHINT_KERNEL_OK);
      // The residual and the momentum: the composed arithmetic, bit for bit.
      EXPECT_EQ(got.d1, want.d1);
      EXPECT_EQ(got.d2, want.d2);
      // The Jacobian: the same derivative by tangents, to round-off of its largest entries.
      double largest = 0.0;
      for (const double x : want.d12) largest = std::max(largest, std::abs(x));
      for (std::size_t e = 0; e < size * size; ++e)
        ASSERT_NEAR(got.d12[e], want.d12[e], 1e-13 * largest) << "D12 entry (" << e / size << ", " << e % size << "), h " << h;
      // Any subset of the outputs: the same numbers, the others untouched.
      const double untouched = -12345.0;
      std::vector<double> d1(size, untouched), d2(size, untouched), d12(size * size, untouched);
      ASSERT_EQ(k.discrete_lagrangian(k.context, MECHINT_RULE_MIDPOINT, h, q0.data(), q1.data(), nullptr, d2.data(), nullptr),
                MECHINT_KERNEL_OK);
      EXPECT_EQ(d2, got.d2);
      ASSERT_EQ(k.discrete_lagrangian(k.context, MECHINT_RULE_MIDPOINT, h, q0.data(), q1.data(), nullptr, nullptr, d12.data()),
                MECHINT_KERNEL_OK);
      EXPECT_EQ(d12, got.d12);
      ASSERT_EQ(k.discrete_lagrangian(k.context, MECHINT_RULE_MIDPOINT, h, q0.data(), q1.data(), d1.data(), nullptr, nullptr),
                MECHINT_KERNEL_OK);
      EXPECT_EQ(d1, got.d1);
    }
  }
  // Only the midpoint rule is supplied.
  std::vector<double> q(size, 0.1), d1(size);
  EXPECT_EQ(k.discrete_lagrangian(k.context, MECHINT_RULE_TRAPEZOID, 0.01, q.data(), q.data(), d1.data(), nullptr, nullptr),
            MECHINT_KERNEL_OUTSIDE_DOMAIN);
}

INSTANTIATE_TEST_SUITE_P(LargeModels, ModelFileStepMidpoint, ::testing::ValuesIn(large_models()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string name = info.param.label;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

TEST(ModelFileStepMidpoint, SmallModelsAndForcedOnesSupplyNoRule) {
  // The examples are composed from L's kernel as before: their numbers do not change.
  for (const auto& entry : fs::directory_iterator(MECHINT_SOURCE_DIR "/examples/models")) {
    if (entry.path().extension() != ".toml") continue;
    const std::string source = generate_kernel_source(read_model_file(entry.path().string()));
    EXPECT_NE(source.find("out->discrete_rules = 0;"), std::string::npos) << entry.path();
    EXPECT_EQ(source.find("mi_discrete_lagrangian"), std::string::npos) << entry.path();
  }
  // A large model with forces: the methods compose the rule and its discrete forces.
  std::string forced = mixed_chain_text(24);
  std::string forces = "forces = [";
  for (int i = 1; i <= 24; ++i) forces += std::string(i > 1 ? ", " : "") + "\"-0.1*th" + std::to_string(i) + "_dot\"";
  forced.insert(forced.find("[initial]"), forces + "]\n");
  const std::string source = generate_kernel_source(parse_model_text(forced, "forced.toml"));
  EXPECT_NE(source.find("mi_tangents("), std::string::npos) << "large enough for the Hessian by tangents";
  EXPECT_NE(source.find("out->discrete_rules = 0;"), std::string::npos);
  EXPECT_EQ(source.find("mi_discrete_lagrangian"), std::string::npos);
}

}  // namespace
