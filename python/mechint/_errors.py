"""The exceptions of mechint (DESIGN §8).

Bad input (an unknown system, parameter or method, a value out of range, a malformed model or
problem file, a start the model refuses) raises the built-in ``ValueError`` with the command line's
one-line message. A run that cannot continue raises ``NumericalFailure`` (the command line's exit
code 3) or one of its subclasses, with where it happened.
"""


class NumericalFailure(RuntimeError):
    """The numerics could not continue (exit code 3 of the command line).

    Attributes:
        step: index of the step that could not be taken or whose result was refused (None: unknown).
        time: the time that step was to reach (an adaptive method: the time it started from).
        residual: the norm of the residual Newton left (None where there is no Newton iteration).
    """

    def __init__(self, message, step=None, time=None, residual=None):
        super().__init__(message)
        self.step = step
        self.time = time
        self.residual = residual


class NewtonFailure(NumericalFailure):
    """Newton's method did not solve a step's equations (the step is too large, or singular)."""


class RejectedStep(NumericalFailure):
    """A step's Newton solution was not the continuation of the motion (the step check refused it)."""


class ImpactFailure(NumericalFailure):
    """An impact could not be resolved (no root of the impact law, a grazing contact)."""


class DomainError(NumericalFailure):
    """The state left the model's domain (a collision with a singular point of the potential)."""
