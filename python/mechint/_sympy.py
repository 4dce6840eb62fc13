"""Models from SymPy expressions (DESIGN §8): ``Model.from_sympy`` writes the model file the
expressions describe (DESIGN §6) and mechint compiles it like any model file, so the model gets every
method, exact derivative and check a model file gets.
"""

import hashlib
import os
import tempfile

from . import System, _mechint


class Model:
    """A model described by a model file; ``Model.from_sympy`` writes one from SymPy expressions.

    ``model.system(**settings)`` is the System of the model (settings as for ``System``);
    ``model.path`` the model file, ``model.text`` its text.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        with open(self.path, encoding="utf-8") as f:
            self.text = f.read()

    def system(self, **settings):
        """The System of this model, with ``settings`` (parameters, initial values, method options)."""
        return System(self.path, **settings)

    def check(self):
        """What mechint derives from the model (``mechint check``), without compiling it."""
        return _mechint._check(self.path)

    def __repr__(self):
        return f"Model({self.path!r})"

    @classmethod
    def from_sympy(cls, lagrangian, coordinates, parameters=None, constraints=None, symmetries=None,
                   initial=None, forces=None, controls=None, unilateral=None, periodic=None, name="sympy-model",
                   description=None, method=None, h=None, draw=None):
        """A model from SymPy expressions.

        lagrangian: L(q, q̇) as a SymPy expression. coordinates: the coordinates as SymPy symbols, whose
        velocities are the symbols named ``<coordinate>_dot`` — or ``sympy.physics.mechanics``
        dynamicsymbols q(t), whose time derivatives are then the velocities. parameters: a dict
        symbol-or-name -> value. constraints: holonomic constraints g(q) = 0; unilateral: walls
        φ(q) >= 0; symmetries: generators ξ(q), one list of len(coordinates) expressions each;
        forces: one generalized force per coordinate, in q, q̇, the controls (symbols, named by
        ``controls``) and ``t``; initial: a dict coordinate-or-velocity -> start value (missing: 0);
        periodic: coordinates written wrapped to (-pi, pi]. name, description, method, h: as in a
        model file (docs/model-files.md). draw: how ``animate()`` and ``mechint run --animate`` draw
        it, the ``[draw]`` section of DESIGN §11: ``{"points": {name: [x, y(, z)]}, "fixed": {name:
        [numbers]}, "links": [[name, name], ...]}``, the points' components SymPy expressions of the
        coordinates and parameters (docs/animations.md).

        The file is written once per distinct model under ``$XDG_CACHE_HOME/mechint/sympy`` (default
        ``~/.cache``); an expression outside the model-file grammar raises ValueError.
        """
        import sympy

        names, replacements = _coordinate_names(coordinates)
        # Every symbol of an expression must be declared: an undeclared one named like a constant of
        # the grammar (pi, e) would silently become that constant.
        declared = set(names) | {n + "_dot" for n in names}
        declared |= {_name_of(k, replacements) for k in (parameters or {})}
        declared |= {_name_of(u, replacements) for u in (controls or [])}
        printer = _ExpressionPrinter(replacements, declared)
        # The drawing is printed as it is: it is small and read apart from the dynamics.
        draw_printer = printer
        # A model whose expressions exceed the model-file limit on one expression's text is written
        # with [definitions]: SymPy's common subexpressions, each once (DESIGN §6). Smaller models are
        # written as they are, expression for expression.
        groups = {"lagrangian": [lagrangian], "constraints": list(constraints or []),
                  "unilateral": list(unilateral or []), "forces": list(forces or []),
                  "symmetries": [x for generator in (symmetries or []) for x in generator]}
        definitions = {}
        if max(len(printer.text(e, also_allowed={"t"})) for g in groups.values() for e in g) > _MAX_EXPRESSION_TEXT:
            definitions, groups = _common_subexpressions(groups, replacements, declared)
            printer = _ExpressionPrinter(replacements, declared | set(definitions))
        lagrangian, constraints, unilateral = groups["lagrangian"][0], groups["constraints"], groups["unilateral"]
        if forces is not None:
            forces = groups["forces"]
        if symmetries:
            flat, width = groups["symmetries"], len(names)
            symmetries = [flat[i:i + width] for i in range(0, len(flat), width)]
        description_dict = {"name": name, "coordinates": names}
        if description:
            description_dict["description"] = description
        if periodic:
            description_dict["periodic"] = [_name_of(c, replacements) for c in periodic]
        if parameters:
            description_dict["parameters"] = {_name_of(k, replacements): float(v) for k, v in parameters.items()}
        description_dict["lagrangian"] = printer.text(lagrangian)
        if constraints:
            description_dict["constraints"] = [printer.text(g) for g in constraints]
        if unilateral:
            description_dict["unilateral"] = [printer.text(w) for w in unilateral]
        if symmetries:
            description_dict["symmetries"] = [[printer.text(x) for x in generator] for generator in symmetries]
        if forces is not None:
            description_dict["forces"] = [printer.text(f, also_allowed={"t"}) for f in forces]
        if controls:
            description_dict["controls"] = [_name_of(u, replacements) for u in controls]
        if method:
            description_dict["method"] = method
        if h is not None:
            description_dict["h"] = float(h)
        if definitions:
            description_dict["definitions"] = {k: printer.text(v, also_allowed={"t"}) for k, v in definitions.items()}
        if initial:
            description_dict["initial"] = {_name_of(k, replacements): float(sympy.sympify(v))
                                           for k, v in initial.items()}
        if draw:
            section = {"points": {str(n): [draw_printer.text(x) for x in p] for n, p in draw["points"].items()}}
            if draw.get("fixed"):
                section["fixed"] = {str(n): [float(x) for x in p] for n, p in draw["fixed"].items()}
            if draw.get("links"):
                section["links"] = [[str(a), str(b)] for a, b in draw["links"]]
            unknown = set(draw) - {"points", "fixed", "links"}
            if unknown:
                raise ValueError(f"draw: unknown keys {sorted(unknown)} (known: points, fixed, links)")
            description_dict["draw"] = section
        text = _mechint._toml_text(description_dict)
        return cls(_cached_file(name, text))


# The longest text of one expression a model file accepts (model_file/expression_parser.hpp).
_MAX_EXPRESSION_TEXT = 10000


def _common_subexpressions(groups, replacements, declared):
    """SymPy's common subexpressions of every expression at once, as ordered definitions named
    d0000, d0001, ... (zero-padded: the file's order and the names' order agree), none a declared
    name; and the expressions rewritten in them."""
    import sympy

    prefix = "d"
    while any(n.startswith(prefix) for n in declared):
        prefix += "d"
    keys = [(group, i) for group, exprs in groups.items() for i in range(len(exprs))]
    exprs = [sympy.sympify(groups[g][i]) for g, i in keys]
    if replacements:
        exprs = [e.subs(replacements) for e in exprs]
    count = sympy.count_ops(sum(exprs)) + 1
    digits = max(4, len(str(count)))
    names = (sympy.Symbol(f"{prefix}{i:0{digits}d}") for i in range(10 ** digits))
    pairs, reduced = sympy.cse(exprs, symbols=names, order="none")
    definitions = {symbol.name: value for symbol, value in pairs}
    out = {g: list(v) for g, v in groups.items()}
    for (g, i), e in zip(keys, reduced):
        out[g][i] = e
    return definitions, out


def _coordinate_names(coordinates):
    """Coordinate names, and the substitutions that turn dynamicsymbols q(t), q'(t) into q, q_dot."""
    import sympy

    names, replacements = [], {}
    for c in coordinates:
        if isinstance(c, sympy.Symbol):
            names.append(c.name)
        elif isinstance(c, sympy.core.function.AppliedUndef) and len(c.args) == 1:
            name = c.func.__name__
            t = c.args[0]
            replacements[sympy.Derivative(c, t)] = sympy.Symbol(name + "_dot")
            replacements[c] = sympy.Symbol(name)
            names.append(name)
        else:
            raise ValueError(f"coordinates: {c!r} is not a SymPy symbol or a dynamicsymbol q(t)")
    return names, replacements


def _name_of(key, replacements):
    """The model-file name of a symbol, a dynamicsymbol or its derivative, or a name given as text."""
    import sympy

    if isinstance(key, str):
        return key
    expr = sympy.sympify(key)
    expr = expr.subs(replacements) if replacements else expr
    if isinstance(expr, sympy.Symbol):
        return expr.name
    raise ValueError(f"{key!r} is not a name (a symbol, a coordinate or its velocity)")


class _ExpressionPrinter:
    """SymPy expressions as model-file expressions (docs/model-files.md, "Expressions")."""

    _FUNCTIONS = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "exp", "log",
                  "sqrt", "Abs", "Min", "Max"}

    def __init__(self, replacements, declared):
        from sympy.printing.str import StrPrinter

        self._replacements = replacements
        self._declared = declared
        outer = self

        class Printer(StrPrinter):
            def _print_Float(self, expr):
                return repr(float(expr))  # exact: the shortest text that reads back as this double

            def _print_Exp1(self, expr):
                return "exp(1)"

            def _print_Pi(self, expr):
                return "pi"

            def _print_Abs(self, expr):
                return f"abs({self._print(expr.args[0])})"

            def _print_MinMax(self, expr, function):
                args = [self._print(a) for a in expr.args]
                text = args[0]
                for a in args[1:]:
                    text = f"{function}({text}, {a})"
                return text

            def _print_Min(self, expr):
                return self._print_MinMax(expr, "min")

            def _print_Max(self, expr):
                return self._print_MinMax(expr, "max")

            def _print_Function(self, expr):
                name = type(expr).__name__
                if name not in outer._FUNCTIONS:
                    raise ValueError(f"the function {name} is not one of the model-file grammar's "
                                     "(sin cos tan asin acos atan atan2 sinh cosh tanh exp log sqrt abs min max)")
                return super()._print_Function(expr)

            def _print_Derivative(self, expr):
                raise ValueError(f"{expr} is not a velocity of a coordinate")

            def _print_ImaginaryUnit(self, expr):
                raise ValueError("a model is real: the expression contains I")

            def _print_Infinity(self, expr):
                raise ValueError("an expression contains an infinity")

            _print_NegativeInfinity = _print_Infinity
            _print_ComplexInfinity = _print_Infinity

            def _print_NaN(self, expr):
                raise ValueError("an expression contains nan")

        self._printer = Printer({"full_prec": True})

    def text(self, expr, also_allowed=frozenset()):
        import sympy

        expr = sympy.sympify(expr)
        if self._replacements:
            expr = expr.subs(self._replacements)
        undeclared = sorted(s.name for s in expr.free_symbols if s.name not in self._declared | set(also_allowed))
        if undeclared:
            raise ValueError(f"undeclared symbol(s) {', '.join(undeclared)} in {expr}: declare each as a coordinate, "
                             "a parameter or a control" + (" (t only in forces)" if "t" in undeclared else ""))
        # The grammar writes powers with ^ (right-associative, below unary minus as in Python).
        return self._printer.doprint(expr).replace("**", "^")


def _cached_file(name, text):
    """Writes `text` once to a private cache, named by its digest; returns the path.

    The directory is created 0700 and refused when another user owns it or others can write it; a
    file already at the name is used only when it holds exactly `text` (else it is written anew), so
    no one can substitute another model for this one.
    """
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    directory = os.path.join(root, "mechint", "sympy")
    os.makedirs(directory, mode=0o700, exist_ok=True)
    info = os.stat(directory)
    if info.st_uid != os.geteuid() or info.st_mode & 0o022:
        raise OSError(f"the model cache {directory} is not a private directory of this user "
                      "(owned by another user, or writable by group or others): set XDG_CACHE_HOME to a private one")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:40]
    path = os.path.join(directory, f"{safe}-{digest}.toml")
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(handle, "r", encoding="utf-8") as existing:
            if existing.read() == text:
                return path
    except (OSError, UnicodeDecodeError):
        pass
    handle, temporary = tempfile.mkstemp(dir=directory, suffix=".partial")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    return path
