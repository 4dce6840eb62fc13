#pragma once
/// \file
/// How a mechanism is drawn (DESIGN §11, docs/animations.md): points placed by expressions of the
/// configuration coordinates, fixed points, and links between them — a model file's `[draw]`, or
/// the description each built-in system gives of itself in its own file (src/systems/NAME.cpp, with
/// app/drawing_helpers.hpp), written in the same expression language and parsed by the same parser
/// (model_file/expression_parser.hpp).
/// The positions are evaluated here, in double precision, from the rows of a run; the page only
/// draws them, so that what it shows is the trajectory itself.

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "app/parameters.hpp"
#include "model_file/model_description.hpp"

namespace mechint::app {

struct SystemEntry;

/// A drawing as text: the form of a model file's `[draw]` with its parameters already replaced by
/// numbers, and a planar chain placed link by link.
struct DrawingText {
  std::vector<std::string> coordinates;  ///< the names the expressions use (columns of the run)
  /// A planar chain hinged at a fixed point (the double pendulum, the acrobot, the pendulum chain):
  /// link i, of length lengths[i], turned by the coordinate angles[i] from the previous link (the
  /// first from the downward vertical), its end the moving point names[i]. Placed link by link,
  /// each point from the one before, in time and memory linear in the links: as expressions, each
  /// point's would repeat every link before it (the 80-link chain's last x, 10 KB of text, was
  /// longer than an expression may be; 1000 links took 2 GB).
  struct Chain {
    std::string pivot;  ///< a name of `fixed`
    std::vector<std::string> angles;
    std::vector<double> lengths;
    std::vector<std::string> names;
  };
  std::optional<Chain> chain;
  std::vector<std::pair<std::string, std::vector<std::string>>> points;  ///< name, 2 or 3 expressions of q
  std::vector<std::pair<std::string, std::vector<double>>> fixed;
  std::vector<std::pair<std::string, std::string>> links;
  /// A wall of an impact problem (004): a segment between two fixed points, and the moving point
  /// that strikes it (the page marks the wall while that point is at it).
  struct Wall {
    std::string from, to, point;
  };
  std::vector<Wall> walls;
};

class Drawing {
 public:
  /// Parses a built-in drawing; throws InvalidInput naming `label` (a bug in a built-in
  /// description: tests build every one).
  static Drawing from_text(const DrawingText& text, const std::string& label);
  /// A model file's `[draw]` (already parsed and checked), with the run's parameter values (in the
  /// order of the file's parameters).
  static Drawing from_model_file(const model_file::DrawDescription& draw, const std::vector<std::string>& coordinates,
                                 std::vector<double> parameters);

  int dimension() const { return dimension_; }
  /// The moving points' names (a chain's first), then the fixed points' names: the order of
  /// positions() and links().
  const std::vector<std::string>& point_names() const { return names_; }
  std::size_t moving_points() const { return chain_lengths_.size() + points_.size(); }
  const std::vector<std::vector<double>>& fixed_positions() const { return fixed_; }
  /// Index pairs into point_names().
  const std::vector<std::pair<int, int>>& links() const { return links_; }
  /// Index triples into point_names(): the wall's two ends and the point that strikes it.
  const std::vector<std::array<int, 3>>& walls() const { return walls_; }
  /// The configuration coordinates the drawing reads, by name (CSV columns of a run).
  const std::vector<std::string>& coordinates() const { return coordinates_; }

  /// Appends the positions of the moving points at configuration `q` (one value per coordinate,
  /// in the order of coordinates()) to `out`: dimension() numbers per point.
  void append_positions(const std::vector<double>& q, std::vector<double>& out) const;

 private:
  int dimension_ = 2;
  std::vector<std::string> coordinates_;
  std::vector<double> parameters_;
  /// A DrawingText::Chain: its pivot's position, each link's angle (an index into coordinates_) and length.
  std::array<double, 2> chain_pivot_{};
  std::vector<std::size_t> chain_angles_;
  std::vector<double> chain_lengths_;
  std::vector<std::vector<model_file::Expression>> points_;
  std::vector<std::vector<double>> fixed_;
  std::vector<std::string> names_;
  std::vector<std::pair<int, int>> links_;
  std::vector<std::array<int, 3>> walls_;
};

/// The drawing of an opened system (its entry's `drawing`: a built-in's, or a model file's `[draw]`)
/// with the parameter values of the run. InvalidInput when it has none.
Drawing system_drawing(const SystemEntry& system, const ParameterValues& values);

}  // namespace mechint::app
