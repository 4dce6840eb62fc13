// The HDF5 files of a sweep read back with the HDF5 library. summary.h5 (app/sweep_summary_hdf5.hpp):
// each column of summary.csv as a dataset, numbers as the same doubles (an empty cell NaN), text as
// the same text (quotes and commas inside a quoted cell included). trajectories.h5
// (app/sweep_trajectories.hpp): every member's dataset holds exactly the rows and column names of its CSV file (doubles
// through 17 significant digits and back: the same bits), a member without a file has no dataset,
// and writing the file twice gives the same bytes (no times recorded). The end-to-end behaviour —
// the files of a real sweep on threads, ranks and after a resume — is tests/test_sweep_cli.cpp's.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "app/hdf5_file.hpp"
#include "mechint/core/errors.hpp"
#include "app/sweep_summary_hdf5.hpp"
#include "app/sweep_trajectories.hpp"

namespace mechint::app {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Whether this process has a shared library whose name contains `name` mapped (/proc/self/maps).
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  const std::string text{std::istreambuf_iterator<char>(maps), std::istreambuf_iterator<char>()};
  return text.find(name) != std::string::npos;
}

/// HDF5 is a module loaded when a file is first written (app/hdf5_module.hpp): before, neither the
/// module nor libhdf5 is in the process; a table written and read back through it is the same bits.
TEST(Hdf5Module, LoadedOnlyWhenAFileIsWritten) {
  EXPECT_FALSE(mapped("libhdf5")) << "HDF5 is loaded at the start";
  EXPECT_FALSE(mapped("libmechint_hdf5"));
  const fs::path dir = fs::temp_directory_path() / ("mechint_hdf5_module_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::vector<double> values = {1.0, -2.5, std::numeric_limits<double>::denorm_min(), 1e300, 0.1, 3.0};
  {
    app::Hdf5Output out(dir / "t.h5");
    out.create_group("/g");
    out.write_table("/g/t", 3, 2, values.data(), {"a", "b"});
    out.commit();
  }
  EXPECT_TRUE(mapped("libmechint_hdf5"));
  EXPECT_TRUE(mapped("libhdf5"));
  const auto table = app::read_hdf5_table(dir / "t.h5", "/g/t");
  ASSERT_TRUE(table.has_value());
  EXPECT_EQ(table->rows, 3u);
  EXPECT_EQ(table->values, values);
  EXPECT_EQ(table->columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(app::read_hdf5_table(dir / "t.h5", "/g/none").has_value());
  EXPECT_THROW(app::read_hdf5_table(dir / "none.h5", "/g/t"), IoError);  // the module's failure, as IoError
  fs::remove_all(dir);
}

TEST(SweepTrajectories, TheHdf5DatasetsAreTheMembersRowsBitForBit) {
  const fs::path dir = fs::temp_directory_path() / ("mechint_sweep_trajectories_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "trajectories");
  SweepPlan::Trajectory a{{"t", "x", "energy"}, {0.0, 0.1, 1.0 / 3.0, 0.5, -1e-300, std::nextafter(1.0, 2.0)}};
  SweepPlan::Trajectory b{{"t", "theta_with_a_long_name", "J1", "lambda1"},
                          {0.0, M_PI, -2.5e300, std::numeric_limits<double>::denorm_min()}};
  std::vector<std::string> records(4, kNoTrajectoryFile);  // member 1: no row journaled, no file
  records[0] = write_member_trajectory(dir, 0, a);
  records[2] = write_member_trajectory(dir, 2, b);
  records[3] = write_member_trajectory(dir, 3, {});  // failed before its first row: no file
  EXPECT_EQ(records[3], kNoTrajectoryFile);
  EXPECT_FALSE(fs::exists(member_trajectory_path(dir, 3)));
  write_trajectories_h5(dir, records);
  const fs::path file = dir / "trajectories.h5";
  const auto read_a = read_trajectory_h5(file, 0), read_b = read_trajectory_h5(file, 2);
  ASSERT_TRUE(read_a && read_b);
  EXPECT_EQ(read_a->columns, a.columns);
  EXPECT_EQ(read_a->values, a.values);  // bit for bit
  EXPECT_EQ(read_b->columns, b.columns);
  EXPECT_EQ(read_b->values, b.values);
  EXPECT_FALSE(read_trajectory_h5(file, 1).has_value());
  EXPECT_FALSE(read_trajectory_h5(file, 3).has_value());
  const std::string first = bytes_of(file);
  write_trajectories_h5(dir, records);
  EXPECT_EQ(bytes_of(file), first);
  // A file that is not the one recorded (edited, gone) is never gathered: the HDF5 file is not
  // written, and the one there keeps its bytes.
  EXPECT_TRUE(member_trajectory_matches(dir, 2, records[2]));
  std::ofstream(member_trajectory_path(dir, 2), std::ios::app) << "1,2,3,4\n";
  EXPECT_FALSE(member_trajectory_matches(dir, 2, records[2]));
  EXPECT_THROW(write_trajectories_h5(dir, records), IoError);
  fs::remove(member_trajectory_path(dir, 0));
  EXPECT_FALSE(member_trajectory_matches(dir, 0, records[0]));
  EXPECT_THROW(write_trajectories_h5(dir, records), IoError);
  EXPECT_EQ(bytes_of(file), first);
  fs::remove_all(dir);
}

TEST(SweepSummaryHdf5, EveryColumnOfTheCsvAsADataset) {
  const fs::path dir = fs::temp_directory_path() / ("mechint_sweep_summary_h5_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string header = "member,vy,x_final,energy_error,steps,status,exit";
  const std::vector<std::string> rows = {
      "0,0.80000000000000004,0.33333333333333331,1.2e-300,200,ok,0",
      "1,0.90000000000000002,,,57,\"Newton did not converge at step 58 (t = 0.58): residual 3, \"\"nan\"\"\",3",
      "2,1,-2.5,0,200,ok,0"};
  EXPECT_EQ(csv_cells(rows[1]),
            (std::vector<std::string>{"1", "0.90000000000000002", "", "", "57",
                                      "Newton did not converge at step 58 (t = 0.58): residual 3, \"nan\"", "3"}));
  write_summary_h5(dir, header, rows);
  const fs::path file = dir / "summary.h5";
  EXPECT_EQ(read_hdf5_string_attribute(file, "/", "columns"), csv_cells(header));
  const auto x = read_hdf5_table(file, "/x_final");
  ASSERT_TRUE(x.has_value());
  ASSERT_EQ(x->rows, 3u);
  EXPECT_EQ(x->values[0], 1.0 / 3.0);
  EXPECT_TRUE(std::isnan(x->values[1]));  // the failed member's value: empty in the CSV
  EXPECT_EQ(x->values[2], -2.5);
  EXPECT_EQ(read_hdf5_table(file, "/energy_error")->values[0], 1.2e-300);
  EXPECT_EQ(read_hdf5_table(file, "/exit")->values, (std::vector<double>{0, 3, 0}));
  const auto status = read_hdf5_strings(file, "/status");
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(*status, (std::vector<std::string>{"ok", csv_cells(rows[1])[5], "ok"}));
  EXPECT_FALSE(read_hdf5_table(file, "/no_such_column").has_value());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace mechint::app
