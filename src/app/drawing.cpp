#include "app/drawing.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "app/system_entry.hpp"
#include "mechint/core/errors.hpp"
#include "mechint/core/format.hpp"
#include "model_file/evaluate.hpp"
#include "model_file/expression_parser.hpp"
#include "model_file/model_file.hpp"

namespace mechint::app {
namespace {

/// Index of each name of `names`; throws (a bug of the caller) for an unknown one.
int index_of(const std::vector<std::string>& names, const std::string& name, const std::string& label) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  throw InvalidInput(label + ": the drawing names the unknown " + quote_for_message(name));
}

}  // namespace

Drawing Drawing::from_text(const DrawingText& text, const std::string& label) {
  Drawing d;
  d.coordinates_ = text.coordinates;
  const model_file::SymbolTable symbols(text.coordinates, {}, {});
  d.dimension_ = text.points.empty() ? 2 : static_cast<int>(text.points.front().second.size());
  if (text.chain) {
    const auto& chain = *text.chain;
    if (d.dimension_ != 2) throw InvalidInput(label + ": a planar chain in a drawing of other points in 3D");
    if (chain.angles.size() != chain.lengths.size() || chain.angles.size() != chain.names.size())
      throw InvalidInput(label + ": the chain has not one angle, length and name per link");
    const auto pivot = std::find_if(text.fixed.begin(), text.fixed.end(), [&](const auto& f) { return f.first == chain.pivot; });
    if (pivot == text.fixed.end() || pivot->second.size() != 2)
      throw InvalidInput(label + ": the chain's pivot " + quote_for_message(chain.pivot) + " is not a fixed point in 2D");
    d.chain_pivot_ = {pivot->second[0], pivot->second[1]};
    for (std::size_t i = 0; i < chain.angles.size(); ++i) {
      d.chain_angles_.push_back(static_cast<std::size_t>(index_of(text.coordinates, chain.angles[i], label)));
      d.chain_lengths_.push_back(chain.lengths[i]);
      d.names_.push_back(chain.names[i]);
    }
  }
  for (const auto& [name, components] : text.points) {
    if (static_cast<int>(components.size()) != d.dimension_)
      throw InvalidInput(label + ": point " + name + " has another dimension than the first");
    std::vector<model_file::Expression> parsed;
    for (const auto& component : components) {
      model_file::ExpressionSource source;
      source.text = component;
      source.start = {1, 1};
      parsed.push_back(model_file::parse_expression(source, symbols, model_file::ExpressionContext::kDrawing, label));
    }
    d.points_.push_back(std::move(parsed));
    d.names_.push_back(name);
  }
  for (const auto& [name, position] : text.fixed) {
    d.fixed_.push_back(position);
    d.names_.push_back(name);
  }
  for (const auto& [a, b] : text.links) d.links_.emplace_back(index_of(d.names_, a, label), index_of(d.names_, b, label));
  for (const auto& w : text.walls)
    d.walls_.push_back({index_of(d.names_, w.from, label), index_of(d.names_, w.to, label),
                        index_of(d.names_, w.point, label)});
  return d;
}

Drawing Drawing::from_model_file(const model_file::DrawDescription& draw, const std::vector<std::string>& coordinates,
                                 std::vector<double> parameters) {
  Drawing d;
  d.coordinates_ = coordinates;
  d.parameters_ = std::move(parameters);
  d.dimension_ = draw.dimension;
  for (const auto& p : draw.points) {
    d.points_.push_back(p.position);
    d.names_.push_back(p.name);
  }
  for (const auto& f : draw.fixed) {
    d.fixed_.push_back(f.position);
    d.names_.push_back(f.name);
  }
  for (const auto& [a, b] : draw.links)
    d.links_.emplace_back(index_of(d.names_, a, "[draw]"), index_of(d.names_, b, "[draw]"));
  return d;
}

void Drawing::append_positions(const std::vector<double>& q, std::vector<double>& out) const {
  // The chain link by link: the absolute angle and the position summed in the order the model's
  // expressions sum them (th1 + th2 + ..., l1 sin(...) + l2 sin(...) + ...).
  double angle = 0.0, x = chain_pivot_[0], y = chain_pivot_[1];
  for (std::size_t i = 0; i < chain_lengths_.size(); ++i) {
    angle = i == 0 ? q[chain_angles_[i]] : angle + q[chain_angles_[i]];
    x += chain_lengths_[i] * std::sin(angle);
    y -= chain_lengths_[i] * std::cos(angle);
    out.push_back(x);
    out.push_back(y);
  }
  if (points_.empty()) return;
  model_file::SymbolValues<double> values;
  values.q = q;
  values.v.assign(q.size(), 0.0);
  values.parameters = parameters_;
  for (const auto& point : points_)
    for (const auto& component : point) out.push_back(model_file::evaluate(component, values));
}

Drawing system_drawing(const SystemEntry& system, const ParameterValues& values) {
  if (!system.drawing) throw InvalidInput("system '" + printable_line(system.name, 200) + "' has no drawing to animate");
  return system.drawing(values);
}

}  // namespace mechint::app
