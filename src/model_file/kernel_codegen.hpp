#pragma once
/// \file
/// From a checked model file (model_file/model_description.hpp) to the C source of its derivative
/// kernels: the table of include/mechint/kernel/model_kernels.h, filled by the exported function
/// `mechint_fill_kernels`. L with its gradient and Hessian blocks, the constraints with their
/// Jacobian, the symmetry generators and the forces with their Jacobians are differentiated
/// symbolically (model_file/symbolic.hpp) and written as straight-line C99: each distinct
/// operation of the hash-consed graph becomes one `const double tN`, so a subexpression shared by
/// L, its gradient and its Hessian is computed once. For a large model L's Hessian blocks are
/// computed by forward tangents of the gradient in all directions at once — a static tape of loops
/// run by a small interpreter in the source (mi_tangents) — and a kernel of more than a few thousand
/// statements is split into functions of bounded size, so that the source, the compiler's time and
/// its memory stay linear in the model's size (docs/performance.md, "Model files of any size").
/// Such a model without forces or velocity constraints also supplies the midpoint rule's discrete
/// derivatives (`discrete_lagrangian`): D1 and D2 as the methods compose them, D12 by one tape of
/// tangents in the n directions of q1, about half the work of L's Hessian blocks.
///
/// The source instantiates no template and includes nothing but <math.h>, <stdint.h>, <stddef.h>
/// and <stdlib.h> (the table's declaration is written inline), so it compiles in about the time the
/// C compiler needs for the arithmetic itself.
///
/// Nothing of the file's text reaches the source: numbers are printed from
/// their double values (shortest text that reads back exactly), names become `q[i]`, `v[i]`,
/// `p[i]` (the parameters, in the order of ModelDescription::parameters), `u[i]` and `t`.

#include <string>

#include "model_file/model_description.hpp"

namespace mechint::model_file {

/// The C99 source of the kernels of `model` and of `mechint_fill_kernels`, whose context is the
/// parameter array it is given. Walls (`unilateral`) are not part of the table yet and are left
/// out; the declared domain is checked first by every kernel (MECHINT_KERNEL_OUTSIDE_DOMAIN when
/// some d_i(q) is not > 0, NaN included). `symmetry` with an index that names no generator also
/// returns MECHINT_KERNEL_OUTSIDE_DOMAIN: the model defines nothing there.
/// `with_optimal_control` adds what `mechint optimize` asks for (model_kernels.h:
/// `lagrangian_third`, `forces_second`) when optimal control applies to the model
/// (optimal_control_applies); the runs' plugin leaves them out, so that only optimize compiles them.
std::string generate_kernel_source(const ModelDescription& model, bool with_optimal_control = false);

/// Whether DMOC applies to the model (kernel/kernel_dmoc.hpp): controls, and no holonomic,
/// nonholonomic or unilateral constraints.
bool optimal_control_applies(const ModelDescription& model);

/// Version of the generated kernel code's layout; part of a cache key.
inline constexpr int kKernelCodeVersion = 4;

}  // namespace mechint::model_file
