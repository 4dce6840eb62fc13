// A test tool: the dynamics of a model file or URDF at one state, as JSON, for the comparison with
// DART in tests/python_cli/test_urdf_dart.py. From the model's Lagrangian kernels (the same the
// methods step on): the mass matrix M = ∂²L/∂q̇², and the bias b = (∂²L/∂q∂q̇)ᵀ q̇ − ∂L/∂q, so that the
// Euler–Lagrange equations read M q̈ + b = 0 (DART's M and C + G with no forces); then q̈.
//
//     model_dynamics FILE q1,...,qn v1,...,vn
#include <Eigen/Dense>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "app/parameters.hpp"
#include "mechint/core/errors.hpp"
#include "model_file/model_file.hpp"
#include "model_file/model_file_system.hpp"
#include "model_file/model_kernels_plugin.hpp"
#include "model_file/system_file.hpp"

namespace {

Eigen::VectorXd numbers(const std::string& text) {
  std::vector<double> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(std::stod(item));
  return Eigen::Map<Eigen::VectorXd>(values.data(), static_cast<Eigen::Index>(values.size()));
}

void print(const char* name, const Eigen::MatrixXd& m) {
  std::printf("\"%s\": [", name);
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    std::printf("%s[", i ? ", " : "");
    for (Eigen::Index j = 0; j < m.cols(); ++j) std::printf("%s%.17g", j ? ", " : "", m(i, j));
    std::printf("]");
  }
  std::printf("]");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace mechint;
  if (argc != 4) {
    std::cerr << "usage: model_dynamics FILE q1,...,qn v1,...,vn\n";
    return 2;
  }
  try {
    const std::string path = argv[1];
    const std::string text = model_file::system_file_text(path);
    const model_file::ModelDescription d = model_file::parse_model_text(text, path);
    model_file::ModelKernelsPlugin plugin(d, text);
    const auto values = app::ParameterValues::resolve(model_file::model_file_parameters(d), {}, d.name);
    const auto problem = plugin.problem(values);
    const Eigen::VectorXd q = numbers(argv[2]), v = numbers(argv[3]);
    const int n = problem.model->dim();
    if (q.size() != n || v.size() != n) throw InvalidInput("expected " + std::to_string(n) + " coordinates and velocities");
    kernel::LagrangianValues l(n);
    if (!problem.model->lagrangian(q, v, l)) throw NumericalFailure("the Lagrangian is not defined at this state");
    const Eigen::MatrixXd mass = l.vv;
    const Eigen::VectorXd bias = Eigen::MatrixXd(l.qv).transpose() * v - Eigen::VectorXd(l.q);
    const Eigen::VectorXd acceleration = mass.ldlt().solve(-bias);
    std::printf("{\"coordinates\": [");
    for (std::size_t i = 0; i < d.coordinates.size(); ++i) std::printf("%s\"%s\"", i ? ", " : "", d.coordinates[i].c_str());
    std::printf("], ");
    print("mass_matrix", mass);
    std::printf(", ");
    print("bias", bias.transpose());
    std::printf(", ");
    print("acceleration", acceleration.transpose());
    std::printf("}\n");
  } catch (const std::exception& e) {
    std::cerr << "model_dynamics: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
