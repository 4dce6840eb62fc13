// What a sweep reads from a member's rows (app/sweep_rows.hpp): the state, energy, Noether momenta,
// constraint residual and indicator columns found in the headers the recorders write
// (app/recorder.hpp's order), and the running maxima over rows fed one by one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "app/sweep_rows.hpp"

namespace mechint::app {
namespace {

using Names = std::vector<std::string>;

TEST(SweepRows, ColumnsOfEveryKindOfHeader) {
  // Rigid body: three momenta, nothing after them.
  auto c = RunColumns::of({"t", "qs", "qx", "qy", "qz", "energy", "Jx", "Jy", "Jz"});
  EXPECT_EQ(c.state_names(), (Names{"qs", "qx", "qy", "qz"}));
  EXPECT_EQ(c.energy, 5);
  EXPECT_EQ(c.momenta, (std::vector<std::size_t>{6, 7, 8}));
  EXPECT_EQ(c.constraint_residual, -1);
  // Double pendulum: canonical momenta in the state, htilde skipped, no symmetry.
  c = RunColumns::of({"t", "th1", "th2", "p1", "p2", "energy", "htilde"});
  EXPECT_EQ(c.state_names(), (Names{"th1", "th2", "p1", "p2"}));
  EXPECT_TRUE(c.momenta.empty());
  // With its wall: the impacts counted so far are no momentum.
  c = RunColumns::of({"t", "th1", "th2", "p1", "p2", "energy", "htilde", "impacts"});
  EXPECT_EQ(c.state_names(), (Names{"th1", "th2", "p1", "p2"}));
  EXPECT_TRUE(c.momenta.empty());
  c = RunColumns::of({"t", "q", "p", "energy", "impacts"});
  EXPECT_TRUE(c.momenta.empty());
  // Three-body: velocities in the state, the Jacobi constant as the energy column.
  c = RunColumns::of({"t", "x", "y", "vx", "vy", "jacobi"});
  EXPECT_EQ(c.state_names(), (Names{"x", "y", "vx", "vy"}));
  EXPECT_EQ(c.energy, 5);
  // A forced, constrained, controlled model file with indicators: J1 only is a momentum.
  c = RunColumns::of({"t", "x", "y", "energy", "J1", "J1_work", "constraint_residual", "lambda1", "u1", "megno",
                      "lyapunov"});
  EXPECT_EQ(c.momenta, (std::vector<std::size_t>{4}));
  EXPECT_EQ(c.constraint_residual, 6);
  EXPECT_EQ(c.megno, 9);
  EXPECT_EQ(c.lyapunov, 10);
  // Cart-pole: a momentum named px, then its work and the control.
  c = RunColumns::of({"t", "x", "th", "energy", "px", "px_work", "u1"});
  EXPECT_EQ(c.momenta, (std::vector<std::size_t>{4}));
  EXPECT_THROW(RunColumns::of({"t", "x"}), std::logic_error);
}

TEST(SweepRows, MaximaOverTheRowsAndTheLastRow) {
  MemberRows rows;
  rows.header({"t", "x", "energy", "J", "constraint_residual", "lambda1"});
  rows.row({0.0, 1.0, 2.0, 5.0, 0.0, 0.3});
  rows.row({0.1, 1.5, 3.5, 4.0, 1e-12, 0.2});
  rows.row({0.2, 0.5, 1.0, 5.5, 3e-13, 0.1});
  EXPECT_EQ(rows.rows(), 3);
  // The largest changes were in the middle row, not the last.
  EXPECT_EQ(rows.energy_error(), 1.5);     // |3.5 - 2.0|
  EXPECT_EQ(rows.momentum_error(), 1.0);   // |4.0 - 5.0|
  EXPECT_EQ(rows.constraint_residual(), 1e-12);
  EXPECT_EQ(rows.last_row(), (std::vector<double>{0.2, 0.5, 1.0, 5.5, 3e-13, 0.1}));
}

}  // namespace
}  // namespace mechint::app
