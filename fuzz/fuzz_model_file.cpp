// libFuzzer target over model files (DESIGN §6): the TOML reading, the checks and the expression
// parser of src/model_file, and the quoting of what their messages echo. See docs/fuzzing.md.
//
// Input: the bytes of a model file. Finding: a crash, a hang, a sanitizer report, an exception
// other than mechint::InvalidInput, an error message that is not one printable line
// `fuzz.toml:LINE:COLUMN: ...`, or an accepted file that breaks an invariant the code generator
// relies on (__builtin_trap).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

#include "fuzz_checks.hpp"
#include "mechint/core/errors.hpp"
#include "model_file/expression_parser.hpp"
#include "model_file/model_file.hpp"

namespace {

using namespace mechint::model_file;

constexpr std::string_view kLabel = "fuzz.toml";

void check_message(std::string_view message) { mechint::fuzz::check_located_message(message, kLabel); }

/// What the code generator relies on: resolved symbols inside their lists, allowed in their
/// context, calls with their arity, finite numbers, bounded depth of nesting. Each distinct node
/// once: definitions are shared nodes (a DAG that written out as a tree may be exponential).
void check_tree(const Expression& e, const ModelDescription& m, ExpressionContext context, int depth,
                std::unordered_set<const Expression*>& seen) {
  if (!seen.insert(&e).second) return;
  FUZZ_CHECK(depth <= static_cast<int>(kMaxExpandedDepth));
  const auto n = static_cast<int>(m.coordinates.size());
  switch (e.kind) {
    case Expression::Kind::kNumber:
      FUZZ_CHECK(std::isfinite(e.number) && e.args.empty());
      break;
    case Expression::Kind::kSymbol:
      FUZZ_CHECK(e.args.empty());
      switch (e.symbol) {
        case SymbolKind::kCoordinate:
          FUZZ_CHECK(e.index >= 0 && e.index < n);
          break;
        case SymbolKind::kVelocity:
          FUZZ_CHECK(e.index >= 0 && e.index < n);
          FUZZ_CHECK(context == ExpressionContext::kLagrangian || context == ExpressionContext::kForce);
          break;
        case SymbolKind::kParameter:
          FUZZ_CHECK(e.index >= 0 && e.index < static_cast<int>(m.parameters.size()));
          break;
        case SymbolKind::kControl:
          FUZZ_CHECK(e.index >= 0 && e.index < static_cast<int>(m.controls.size()));
          FUZZ_CHECK(context == ExpressionContext::kForce);
          break;
        case SymbolKind::kTime:
          FUZZ_CHECK(context == ExpressionContext::kForce);
          break;
      }
      break;
    case Expression::Kind::kNegate:
      FUZZ_CHECK(e.args.size() == 1);
      break;
    case Expression::Kind::kCall: {
      const auto f = static_cast<std::size_t>(e.function);
      FUZZ_CHECK(f < kFunctionArity.size());
      FUZZ_CHECK(static_cast<int>(e.args.size()) == kFunctionArity[f]);
      break;
    }
    default:
      FUZZ_CHECK(e.args.size() == 2);
  }
  FUZZ_CHECK(e.position.line >= 1 && e.position.column >= 1);
  for (const auto& arg : e.args) check_tree(arg, m, context, depth + 1, seen);
}

void check_tree(const Expression& e, const ModelDescription& m, ExpressionContext context, int depth) {
  std::unordered_set<const Expression*> seen;
  check_tree(e, m, context, depth, seen);
}

void check_model(const ModelDescription& m) {
  const std::size_t n = m.coordinates.size();
  FUZZ_CHECK(n >= 1 && n <= kMaxCoordinates);
  FUZZ_CHECK(m.file == kLabel);
  FUZZ_CHECK(!m.name.empty() && m.name.size() <= kMaxNameLength);
  FUZZ_CHECK(m.periodic.size() == n && m.initial_q.size() == n && m.initial_v.size() == n);
  FUZZ_CHECK(m.constraints.size() < n);
  FUZZ_CHECK(m.forces.empty() || m.forces.size() == n);
  for (const auto& p : m.parameters) FUZZ_CHECK(std::isfinite(p.value));
  for (std::size_t i = 0; i < n; ++i) FUZZ_CHECK(std::isfinite(m.initial_q[i]) && std::isfinite(m.initial_v[i]));
  if (m.h) FUZZ_CHECK(std::isfinite(*m.h) && *m.h > 0.0);

  check_tree(m.lagrangian, m, ExpressionContext::kLagrangian, 0);
  FUZZ_CHECK(uses_symbol(m.lagrangian, SymbolKind::kVelocity));
  for (const auto& g : m.constraints) check_tree(g, m, ExpressionContext::kConstraint, 0);
  for (const auto& phi : m.unilateral) check_tree(phi, m, ExpressionContext::kUnilateral, 0);
  for (const auto& xi : m.symmetries) {
    FUZZ_CHECK(xi.size() == n);
    for (const auto& component : xi) check_tree(component, m, ExpressionContext::kSymmetry, 0);
  }
  for (const auto& f : m.forces) check_tree(f, m, ExpressionContext::kForce, 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    check_model(parse_model_text(text, std::string(kLabel)));
  } catch (const mechint::InvalidInput& e) {
    check_message(e.what());
  } catch (...) {
    __builtin_trap();  // any other exception is a bug: the command line would report exit 1
  }
  return 0;
}
