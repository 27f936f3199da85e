"""The tables of the Python analysis: what is known to be read-only, each entry with a reason.

An allow-list, as for the shell: a call is read-only only when its function or method is in
these tables *and* the objects it works on are library objects (see ``kinds.py``). Anything
else is "not proven read-only", which the RunCode tool turns into a question.

Functions are keyed by their canonical name: the public dotted path of the real object
(``numpy.mean``, ``pandas.read_csv``, ``builtins.len``, ``posixpath.join`` for ``os.path.join``),
never by the name the code happens to use, so ``from numpy import mean as m`` is found and a
user function called ``mean`` is not. Methods are keyed by the receiver's family.

``Entry.returns`` is the family of the result (``"same"``: the receiver's family; None: a
library value of unknown family). ``Entry.check`` says how the receiver and the arguments are
checked (the checks are implemented in ``calls.py``):

=============  ==================================================================================
``deep``       receiver and every argument are deep-trusted values (no lambdas, no user objects)
``shallow``    the receiver/argument only needs its own special methods to be library code
``print``      ``deep``, and only the keywords ``sep``, ``end``, ``flush`` (never ``file=``)
``open``       ``open(path)`` in a read mode (``r``, ``rb``, ``rt``) with a known path: a read
``attr_name``  ``getattr``/``hasattr`` with a constant attribute name that is not a dunder
``key_func``   ``deep``; a lambda is accepted as ``key=`` (sorted/min/max) or as the function
               of ``map``/``filter``, its body analysed with the elements' kind
``inplace``    ``deep``, and no ``inplace=`` other than a literal False
``read_path``  ``deep``; the first argument (or ``path``/``filepath_or_buffer``/``io``/``fname``)
               is a known local path, which becomes a read effect; a URL is network: refused
``no_pickle``  ``read_path``, and no ``allow_pickle=`` other than a literal False
``agg``        ``deep``, and the arguments are constants (``"mean"``, ``["min", "max"]``)
``no_buf``     ``deep``, and no ``buf=`` (``df.info(buf=f)`` writes into ``f``)
``stat_path``  the receiver is a ``Path`` whose value is known: a read of that path
``call_self``  ``deep``; calling the receiver itself (``df.plot(...)``)
``finite``     ``deep``, with a count (``itertools.repeat(x, 3)``; without one it never ends)
``format``     ``deep``, and the template is a known string whose fields are plain names or
               positions (``"{0.__class__}"`` would read attributes, dunders included)
=============  ==================================================================================

Every entry, whatever its check, refuses the keywords of ``GUARDED_KEYWORDS`` (``out=``,
``buf=``, ``inplace=``, ``mmap_mode=``: they name where a result is written; ``backend=``: a
module pandas imports) unless their value is a harmless literal, and the positional arguments
past ``POSITIONAL_LIMITS`` (``arr.sum(0, None, out)``, ``df.to_string("x.txt")``,
``np.add(a, b, out)``: numpy functions are looked up by their
signature, see ``values.out_position``).

A function handed to code that calls it (``map``, ``sorted``'s ``key``, ``groupby``, a reader's
``converters``) is called with arguments the analysis never sees, so its own checks cannot run:
only entries whose check holds for any deep arguments qualify (``CALLABLE_CHECKS``, no file
effect, no output position): ``len``, ``str.lower``, ``np.mean``; not ``open``, ``getattr``,
``pd.read_csv``, ``str.format``, ``np.add`` (its third argument is where it writes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

__all__ = ["Entry", "FUNCTIONS", "METHODS", "ATTRIBUTES", "NEVER", "NEVER_MODULES",
           "LIBRARY_MODULES", "SECRET_WORDS", "WRITERS", "never_reason", "CALLABLE_CHECKS",
           "GUARDED_KEYWORDS", "POSITIONAL_LIMITS", "callable_entry"]


@dataclass(frozen=True)
class Entry:
    returns: str | None
    reason: str
    check: str = "deep"
    effect: str | None = None  # "read" | "search": what the path argument is used for


FUNCTIONS: dict[str, Entry] = {}
METHODS: dict[str, dict[str, Entry]] = {}
ATTRIBUTES: dict[str, dict[str, str | None]] = {}


def _functions(reason: str, names: Iterable[str], returns: str | None = None,
               check: str = "deep", effect: str | None = None, prefix: str = "") -> None:
    for name in names:
        FUNCTIONS[prefix + name] = Entry(returns, reason, check, effect)


def _methods(families: Iterable[str], reason: str, names: Iterable[str],
             returns: str | None = "same", check: str = "deep",
             effect: str | None = None) -> None:
    names = list(names)
    for family in families:
        table = METHODS.setdefault(family, {})
        for name in names:
            table[name] = Entry(returns, reason, check, effect)


def _attributes(families: Iterable[str], names: Iterable[str], returns: str | None) -> None:
    names = list(names)
    for family in families:
        table = ATTRIBUTES.setdefault(family, {})
        for name in names:
            table[name] = returns


# --- builtins ---------------------------------------------------------------------------------

_functions("a pure built-in: computes a value from its arguments, changes nothing", [
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "complex",
    "dict", "divmod", "enumerate", "float", "format", "frozenset", "hash", "hex", "int",
    "list", "oct", "ord", "pow", "range", "repr", "reversed", "round", "set", "slice", "str",
    "sum", "tuple", "zip", "dir",
], prefix="builtins.")
for _name, _family in (("str", "str"), ("repr", "str"), ("ascii", "str"), ("format", "str"),
                       ("hex", "str"), ("oct", "str"), ("bin", "str"), ("chr", "str"),
                       ("list", "list"), ("tuple", "tuple"), ("dict", "dict"), ("set", "set"),
                       ("frozenset", "set"), ("int", "number"), ("float", "number"),
                       ("complex", "number"), ("bool", "number"), ("abs", None),
                       ("ord", "number"), ("hash", "number"), ("range", "range"),
                       ("dir", "list"), ("callable", "number")):
    FUNCTIONS["builtins." + _name] = Entry(_family, FUNCTIONS["builtins." + _name].reason)
_functions("looks only at the object's type or identity, never at its contents",
           ["len", "type", "isinstance", "issubclass", "id"], "number", "shallow",
           prefix="builtins.")
FUNCTIONS["builtins.type"] = Entry(None, FUNCTIONS["builtins.type"].reason, "shallow")
_functions("sorts/compares values it is given; a key function is checked like the rest of the "
           "code", ["sorted", "min", "max", "map", "filter"], None, "key_func",
           prefix="builtins.")
FUNCTIONS["builtins.sorted"] = Entry("list", FUNCTIONS["builtins.sorted"].reason, "key_func")
FUNCTIONS["builtins.print"] = Entry(
    "none", "writes the values' text to the cell output, nothing else (never with file=)",
    "print")
FUNCTIONS["IPython.core.display_functions.display"] = Entry(
    "none", "shows the values in the output (IPython's display), nothing else", "print")
FUNCTIONS["IPython.display.display"] = FUNCTIONS["IPython.core.display_functions.display"]
FUNCTIONS["builtins.getattr"] = Entry(
    None, "reads one attribute whose name is a constant, not a dunder", "attr_name")
FUNCTIONS["builtins.hasattr"] = Entry(
    "number", "tests one attribute whose name is a constant, not a dunder", "attr_name")
FUNCTIONS["builtins.open"] = Entry(
    "file", "opens a file for reading (modes r, rb, rt): a read of that path", "open")

# --- standard library modules ---------------------------------------------------------------

_functions("pure math on numbers", [
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "comb", "copysign",
    "cos", "cosh", "degrees", "dist", "erf", "erfc", "exp", "expm1", "fabs", "factorial",
    "floor", "fmod", "frexp", "fsum", "gamma", "gcd", "hypot", "isclose", "isfinite", "isinf",
    "isnan", "isqrt", "lcm", "ldexp", "lgamma", "log", "log10", "log1p", "log2", "modf",
    "nextafter", "perm", "pow", "prod", "radians", "remainder", "sin", "sinh", "sqrt", "tan",
    "tanh", "trunc", "ulp",
], "number", prefix="math.")
_functions("statistics of the values it is given", [
    "mean", "fmean", "geometric_mean", "harmonic_mean", "median", "median_low", "median_high",
    "median_grouped", "mode", "multimode", "pstdev", "pvariance", "stdev", "variance",
    "quantiles", "correlation", "covariance",
], None, prefix="statistics.")
_functions("converts between JSON text and values; no file involved", ["dumps", "loads"], None,
           prefix="json.")
_functions("regular expressions over strings it is given", [
    "compile", "escape", "findall", "finditer", "fullmatch", "match", "search", "split", "sub",
    "subn",
], None, prefix="re.")
_functions("string work on path names; no file system access",
           ["join", "basename", "dirname", "splitext", "split", "normpath", "isabs",
            "commonpath", "commonprefix", "relpath"], "str", prefix="posixpath.")
for _module in ("posixpath", "genericpath"):  # os.path.exists is genericpath.exists
    _functions("looks at one path's metadata: a read of that path",
               ["exists", "isfile", "isdir", "islink", "getsize", "getmtime", "getctime",
                "lexists"], "number", "read_path", "read", prefix=_module + ".")
for _module in ("os", "posix"):  # os.listdir is posix.listdir
    _functions("lists a folder: a read of that folder", ["listdir"], "list", "read_path",
               "search", prefix=_module + ".")
    FUNCTIONS[_module + ".getcwd"] = Entry("str", "tells the current directory, changes nothing")
FUNCTIONS["glob.glob"] = Entry("list", "lists files matching a pattern: a read of that folder",
                               "read_path", "search")
_functions("pure functions of the text it is given", ["dedent", "indent", "shorten", "wrap",
                                                       "fill"], None, prefix="textwrap.")
# not count, cycle, and repeat without a count: endless iterators, and list()/sum()/max() of
# one loops in C, where the interrupt RunCode's timeout sends never arrives (the kernel hangs)
_functions("pure functions building iterators over values it is given", [
    "accumulate", "chain", "combinations", "combinations_with_replacement", "compress",
    "dropwhile", "groupby", "islice", "pairwise", "permutations", "product", "starmap",
    "takewhile", "zip_longest",
], None, prefix="itertools.")
FUNCTIONS["itertools.repeat"] = Entry(
    None, "repeats a value a given number of times (never without one: an endless iterator)",
    "finite")
_functions("builds a container from the values it is given",
           ["Counter", "OrderedDict", "deque", "defaultdict", "namedtuple"], None,
           prefix="collections.")
_functions("reads the clock, changes nothing", ["time", "monotonic", "perf_counter"], "number",
           prefix="time.")
_functions("date and time values", ["date", "datetime", "time", "timedelta", "timezone"],
           "datetime", prefix="datetime.")
_functions("the current date and time, or one parsed from text",
           ["datetime.now", "datetime.today", "datetime.utcnow", "datetime.fromisoformat",
            "datetime.strptime", "datetime.fromtimestamp", "date.today", "date.fromisoformat"],
           "datetime", prefix="datetime.")
_functions("exact numbers", ["Decimal"], "number", prefix="decimal.")
_functions("exact numbers", ["Fraction"], "number", prefix="fractions.")
_functions("a path value: building it touches no file", ["Path", "PurePath", "PosixPath",
                                                          "PurePosixPath"], "path",
           prefix="pathlib.")
FUNCTIONS["sys.getsizeof"] = Entry("number", "the size of an object in memory", "shallow")
FUNCTIONS["copy.copy"] = Entry(None, "a copy of a library value; the original is untouched")
FUNCTIONS["copy.deepcopy"] = Entry(None, "a copy of a library value; the original is untouched")

# --- numpy ----------------------------------------------------------------------------------

_functions("numpy computes a new array from its arguments; nothing is changed in place", [
    "abs", "absolute", "add", "all", "allclose", "amax", "amin", "any", "append", "arange",
    "arccos", "arcsin", "arctan", "arctan2", "argmax", "argmin", "argsort", "argwhere",
    "around", "array", "array_equal", "asarray", "atleast_1d", "atleast_2d", "average",
    "bincount", "broadcast_to", "ceil", "clip", "column_stack", "concatenate", "corrcoef",
    "cos", "count_nonzero", "cov", "cross", "cumprod", "cumsum", "diag", "diagonal", "diff",
    "digitize", "divide", "dot", "dstack", "empty_like", "equal", "exp", "expand_dims",
    "eye", "flatnonzero", "flip", "floor", "full", "full_like", "geomspace", "gradient",
    "greater", "histogram", "histogram2d", "hstack", "identity", "inner", "interp",
    "intersect1d", "isclose", "isfinite", "isin", "isinf", "isnan", "less", "linspace",
    "log", "log10", "log1p", "log2", "logspace", "matmul", "max", "maximum", "mean",
    "median", "meshgrid", "min", "minimum", "mod", "multiply", "nan_to_num", "nanargmax",
    "nanargmin", "nancumsum", "nanmax", "nanmean", "nanmedian", "nanmin", "nanpercentile",
    "nanquantile", "nanstd", "nansum", "nanvar", "ndim", "negative", "nonzero", "ones",
    "ones_like", "outer", "percentile", "polyfit", "polyval", "power", "prod", "ptp",
    "quantile", "ravel", "repeat", "reshape", "rint", "roll", "rot90", "round", "searchsorted",
    "setdiff1d", "shape", "sign", "sin", "size", "sort", "sqrt", "square", "squeeze", "stack",
    "std", "subtract", "sum", "swapaxes", "take", "tan", "tanh", "tile", "trace", "transpose",
    "tril", "triu", "true_divide", "trunc", "union1d", "unique", "var", "vstack", "where",
    "zeros", "zeros_like", "float64", "float32", "int64", "int32", "bool_", "dtype",
    "finfo", "iinfo", "isscalar", "result_type", "can_cast",
], "numpy", prefix="numpy.")
_functions("numpy linear algebra computes new arrays", [
    "cond", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matrix_rank",
    "norm", "pinv", "qr", "slogdet", "solve", "svd",
], "numpy", prefix="numpy.linalg.")
_functions("numpy reads a text or .npy file: a read of that path (never pickled objects)",
           ["loadtxt", "genfromtxt", "fromfile"], "numpy", "read_path", "read", prefix="numpy.")
FUNCTIONS["numpy.load"] = Entry("numpy", "reads a .npy/.npz file: a read of that path "
                                "(allow_pickle=True would run code: refused)", "no_pickle",
                                "read")

# --- pandas ---------------------------------------------------------------------------------

_functions("pandas builds a new frame or series from its arguments", [
    "DataFrame", "Series", "Index", "Categorical", "concat", "crosstab", "cut", "date_range",
    "get_dummies", "isna", "isnull", "melt", "merge", "merge_asof", "notna", "notnull",
    "period_range", "pivot", "pivot_table", "qcut", "timedelta_range", "to_datetime",
    "to_numeric", "to_timedelta", "unique", "value_counts", "Timestamp", "Timedelta",
    "NamedAgg", "json_normalize",
], "pandas", prefix="pandas.")
_functions("pandas reads a local data file into a new frame: a read of that path", [
    "read_csv", "read_table", "read_fwf", "read_json", "read_parquet", "read_feather",
    "read_excel", "read_orc", "read_stata", "read_sas", "read_spss",
], "pandas", "read_path", "read", prefix="pandas.")

# --- matplotlib -----------------------------------------------------------------------------

_functions("draws in a figure in memory; nothing is saved to a file (savefig is not here)", [
    "annotate", "axhline", "axis", "axvline", "bar", "barh", "boxplot", "colorbar", "contour",
    "contourf", "errorbar", "figure", "fill_between", "gca", "gcf",
    "grid", "hist", "hist2d", "imshow", "legend", "loglog", "pie", "plot", "scatter",
    "semilogx", "semilogy", "show", "stackplot", "stem", "step", "subplot", "subplots",
    "suptitle", "text", "tight_layout", "title", "violinplot", "xlabel", "xlim", "xscale",
    "xticks", "ylabel", "ylim", "yscale", "yticks", "hlines", "vlines", "matshow", "pcolormesh",
    "quiver",
], "mpl", prefix="matplotlib.pyplot.")

# --- methods of built-in types ---------------------------------------------------------------

_methods(["str"], "a str method returns a new value; strings never change", [
    "capitalize", "casefold", "center", "count", "endswith", "expandtabs", "find", "index",
    "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
    "isnumeric", "isprintable", "isspace", "istitle", "isupper", "ljust", "lower", "lstrip",
    "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust",
    "rpartition", "rstrip", "startswith", "strip", "swapcase", "title", "upper", "zfill",
    "encode",
], "str")
_methods(["str"], "a str method returns a new value; strings never change",
         ["split", "rsplit", "splitlines"], "list")
_methods(["str"], "joins the values it is given into a new string", ["join"], "str")
_methods(["str"], "formats the values it is given into a new string (fields by name or "
         "position only)", ["format", "format_map"], "str", "format")
_methods(["bytes"], "a bytes method returns a new value; bytes never change", [
    "decode", "hex", "count", "endswith", "find", "index", "lower", "upper", "startswith",
    "strip", "split", "replace", "isdigit", "isalpha",
], None)
_methods(["list", "tuple"], "looks into the sequence, changes nothing (append/sort/pop… are "
         "not here: they change it)", ["index", "count"], "number")
_methods(["list"], "a new list with the same items", ["copy"], "list")
_methods(["dict"], "reads the mapping, changes nothing (update/pop/setdefault… are not here)",
         ["keys", "values", "items", "get", "copy"], None)
_methods(["set"], "a set operation returns a new set (add/discard/update… are not here)", [
    "union", "intersection", "difference", "symmetric_difference", "issubset", "issuperset",
    "isdisjoint", "copy",
], "set")
_methods(["number"], "a number method returns a new value", [
    "bit_length", "bit_count", "conjugate", "as_integer_ratio", "is_integer", "hex",
    "to_bytes",
], None)
_methods(["datetime"], "a date/time method returns a new value", [
    "isoformat", "strftime", "date", "time", "weekday", "isoweekday", "isocalendar",
    "timestamp", "replace", "total_seconds", "astimezone", "timetuple", "ctime",
    "normalize", "round", "floor", "ceil", "to_pydatetime", "day_name", "month_name",
], None)
_methods(["path"], "builds another path value; touches no file", [
    "joinpath", "with_name", "with_suffix", "with_stem", "relative_to", "is_absolute",
    "as_posix", "match", "is_relative_to",
], "path")
_methods(["path"], "looks at the file system at this path: a read of that path", [
    "exists", "is_file", "is_dir", "is_symlink", "stat", "read_text", "read_bytes",
], None, "stat_path", "read")
_methods(["path"], "lists a folder: a read of that folder", ["iterdir", "glob", "rglob"],
         None, "stat_path", "search")
_methods(["file"], "reads from a file this code opened for reading",
         ["read", "readline", "readlines", "readable", "seekable", "tell", "fileno"], None)
_methods(["re_pattern"], "matches a compiled pattern against text", [
    "match", "search", "fullmatch", "findall", "finditer", "split", "sub", "subn",
], None)

# --- numpy arrays and scalars -----------------------------------------------------------------

_methods(["numpy"], "an ndarray method that returns a new value (sort, fill, resize, put, "
         "tofile, dump are not here: they change the array or write a file)", [
    "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "clip",
    "compress", "conj", "conjugate", "copy", "cumprod", "cumsum", "diagonal", "dot",
    "flatten", "item", "max", "mean", "min", "nonzero", "prod", "ptp", "ravel", "repeat",
    "reshape", "round", "searchsorted", "squeeze", "std", "sum", "swapaxes", "take",
    "tolist", "tobytes", "trace", "transpose", "var", "view",
], "numpy")
_methods(["numpy"], "converts to a plain Python value", ["tolist", "item"], None)
_attributes(["numpy"], ["shape", "strides"], "tuple")
_attributes(["numpy"], ["ndim", "size", "itemsize", "nbytes"], "number")
_attributes(["numpy"], ["T", "real", "imag", "flat"], "numpy")
_attributes(["numpy"], ["dtype"], None)

# --- pandas objects -----------------------------------------------------------------------------

_PANDAS_READ = [
    "abs", "all", "any", "between", "between_time", "bfill", "clip", "combine_first", "copy",
    "corr", "corrwith", "count", "cov", "cummax", "cummin", "cumprod", "cumsum", "describe",
    "diff", "drop_duplicates", "droplevel", "duplicated", "equals", "explode", "ffill",
    "filter", "first_valid_index", "get", "head", "idxmax", "idxmin", "infer_objects",
    "interpolate", "isin", "isna", "isnull", "items", "iterrows", "itertuples", "join",
    "keys", "kurt", "last_valid_index", "max", "mean", "median", "melt", "memory_usage",
    "merge", "min", "mode", "nlargest", "notna", "notnull", "nsmallest", "nunique",
    "pct_change", "pivot", "pivot_table", "prod", "quantile", "rank", "reindex",
    "round", "select_dtypes", "sem", "shift", "skew", "squeeze", "stack", "std", "sum",
    "swaplevel", "tail", "take", "to_dict", "to_frame", "to_list", "to_numpy", "to_string",
    "to_period", "to_timestamp", "tolist", "transpose", "truncate", "tz_convert",
    "tz_localize", "unique", "unstack", "value_counts", "var", "xs", "argmax", "argmin",
    "searchsorted", "factorize", "asfreq", "where", "mask", "compare", "align", "add",
    "sub", "mul", "div", "truediv", "floordiv", "mod", "pow", "eq", "ne", "lt", "le", "gt",
    "ge", "dot", "nth",
]
_methods(["pandas"], "a pandas method that returns a new frame or series and changes nothing "
         "(to_csv/to_pickle…, eval/query, apply/map/pipe and sample are not here)",
         _PANDAS_READ, "pandas")
_methods(["pandas"], "returns a new frame or series; refused with inplace=True, which changes "
         "the data", [
    "astype", "drop", "dropna", "fillna", "rename", "rename_axis", "replace", "reset_index",
    "set_index", "sort_index", "sort_values", "set_axis", "add_prefix", "add_suffix",
    "assign",
], "pandas", "inplace")
_methods(["pandas"], "groups or windows the data for an aggregation; nothing is computed yet",
         ["groupby"], "pandas_groupby")
_methods(["pandas"], "groups or windows the data for an aggregation; nothing is computed yet",
         ["rolling", "expanding", "ewm", "resample"], "pandas_window")
_methods(["pandas"], "aggregates with named functions given as constants",
         ["agg", "aggregate"], "pandas", "agg")
_methods(["pandas"], "prints a summary to the cell output (never with buf=)", ["info"], "none",
         "no_buf")
_methods(["pandas", "pandas_plot"], "draws a plot in memory; nothing is saved",
         ["hist", "boxplot", "line", "bar", "barh", "scatter", "area", "pie", "box", "kde",
          "density", "hexbin"], "mpl")
_methods(["pandas"], "draws a plot in memory; nothing is saved", ["plot"], "mpl", "call_self")
_attributes(["pandas"], ["shape"], "tuple")
_attributes(["pandas"], ["ndim", "size", "empty", "nbytes", "is_unique",
                         "is_monotonic_increasing", "is_monotonic_decreasing", "hasnans"],
            "number")
_attributes(["pandas"], ["columns", "index", "T", "values", "array", "iloc", "loc", "at", "iat",
                         "dtypes", "axes", "levels", "codes", "names", "categories"], "pandas")
_attributes(["pandas"], ["plot"], "pandas_plot")
_attributes(["pandas"], ["str"], "pandas_str")
_attributes(["pandas"], ["dt"], "pandas_dt")
_attributes(["pandas"], ["cat"], "pandas_cat")
_attributes(["pandas"], ["dtype", "name", "attrs"], None)
_methods(["pandas_groupby"], "aggregates each group into a new frame", [
    "count", "cumcount", "cummax", "cummin", "cumprod", "cumsum", "describe", "first", "head",
    "last", "max", "mean", "median", "min", "ngroup", "nth", "nunique", "prod", "quantile",
    "rank", "sem", "size", "std", "sum", "tail", "value_counts", "var", "get_group", "idxmax",
    "idxmin", "any", "all", "corr", "cov", "skew", "diff", "shift", "pct_change",
], "pandas")
_methods(["pandas_groupby", "pandas_window"], "aggregates with named functions given as "
         "constants", ["agg", "aggregate"], "pandas", "agg")
_attributes(["pandas_groupby"], ["groups", "ngroups", "indices"], None)
_methods(["pandas_window"], "aggregates each window into a new frame", [
    "count", "max", "mean", "median", "min", "quantile", "sem", "std", "sum", "var", "corr",
    "cov", "skew", "kurt", "first", "last",
], "pandas")
_methods(["pandas_str"], "vectorised string functions returning a new series", [
    "capitalize", "casefold", "cat", "center", "contains", "count", "endswith", "extract",
    "extractall", "find", "findall", "fullmatch", "get", "isalnum", "isalpha", "isdigit",
    "islower", "isnumeric", "isspace", "isupper", "join", "len", "ljust", "lower", "lstrip",
    "match", "normalize", "pad", "removeprefix", "removesuffix", "repeat", "replace", "rfind",
    "rjust", "rsplit", "rstrip", "slice", "split", "startswith", "strip", "swapcase",
    "title", "upper", "zfill", "get_dummies", "partition", "wrap",
], "pandas")
_methods(["pandas_dt"], "date/time parts of a series as a new series", [
    "strftime", "normalize", "round", "floor", "ceil", "day_name", "month_name", "to_period",
    "tz_localize", "tz_convert", "isocalendar", "total_seconds", "to_pydatetime",
], "pandas")
_attributes(["pandas_dt"], [
    "year", "month", "day", "hour", "minute", "second", "microsecond", "nanosecond",
    "dayofweek", "day_of_week", "weekday", "dayofyear", "day_of_year", "quarter", "date",
    "time", "days_in_month", "is_month_start", "is_month_end", "days", "seconds",
], "pandas")
_methods(["pandas_cat"], "categorical facts as a new value", ["as_ordered", "as_unordered"],
         "pandas")
_attributes(["pandas_cat"], ["categories", "codes", "ordered"], "pandas")

# --- matplotlib objects (Figure, Axes) ---------------------------------------------------------

_methods(["mpl"], "reads a figure's state, changes nothing (drawing on an existing figure of "
         "yours would change it: not here)", [
    "get_xlim", "get_ylim", "get_title", "get_xlabel", "get_ylabel",
    "get_legend_handles_labels", "get_size_inches", "get_xticks", "get_yticks",
], None)


# --- arguments that say where a result goes ---------------------------------------------------

#: checks that hold for any deep arguments: a function with one of them (and no file effect)
#: may be handed to library code that calls it (``map(len, …)``, ``sorted(key=str.lower)``)
CALLABLE_CHECKS = frozenset({"deep", "shallow", "print", "key_func"})


def callable_entry(entry: Entry | None) -> bool:
    """A table entry whose function may be called by library code with arguments the analysis
    does not see (the caller also checks it has no output position)."""
    return entry is not None and entry.check in CALLABLE_CHECKS and entry.effect is None


#: keyword -> (the literal values that leave everything as it was, why another value is not
#: read-only): where a result is written, or what else is loaded and run
GUARDED_KEYWORDS: dict[str, tuple[tuple[object, ...], str]] = {
    "out": ((None,), "out= writes the result into an existing array (changes it in place)"),
    "buf": ((None,), "buf= writes the text into a file or buffer"),
    "inplace": ((False,), "inplace= changes the data in place"),
    "mmap_mode": ((None, "r", "c"), "mmap_mode= other than 'r'/'c' maps the file writable "
                  "('w+' truncates it)"),
    # pandas imports any module named as a plotting backend: df.plot(backend="this") runs it
    "backend": ((None, "matplotlib"), "backend= imports a module by name (runs its code)"),
}

#: receiver family -> method -> how many positional arguments it takes before the one that
#: says where the result is written (numpy's ``out``, pandas' ``buf``); read from the
#: signatures in numpy's docstrings (``a.sum(axis=None, dtype=None, out=None, …)``)
POSITIONAL_LIMITS: dict[str, dict[str, int]] = {
    "numpy": {"all": 1, "any": 1, "argmax": 1, "argmin": 1, "clip": 2, "compress": 2,
              "cumprod": 2, "cumsum": 2, "dot": 1, "max": 1, "mean": 2, "min": 1, "prod": 2,
              "round": 1, "std": 2, "sum": 2, "take": 2, "trace": 4, "var": 2},
    "pandas": {"to_string": 0},
}


# --- never read-only: the reason given for the most common doors out -----------------------------

NEVER: dict[str, str] = {
    "builtins.exec": "runs arbitrary code given as a string",
    "builtins.eval": "runs arbitrary code given as a string",
    "builtins.compile": "turns a string into code to run later",
    "builtins.__import__": "imports a module (runs its code)",
    "builtins.breakpoint": "starts a debugger, which can run any code",
    "builtins.input": "waits for someone to type in the notebook",
    "builtins.help": "starts the interactive help",
    "builtins.exit": "ends the kernel",
    "builtins.quit": "ends the kernel",
    "builtins.setattr": "changes an attribute",
    "builtins.delattr": "deletes an attribute",
    "builtins.globals": "gives the notebook's namespace itself: a door to change any variable",
    "builtins.locals": "gives the notebook's namespace itself: a door to change any variable",
    "builtins.vars": "gives an object's namespace itself: a door to change it",
    "builtins.memoryview": "gives writable access to an object's memory",
    "builtins.next": "advances an iterator, which changes it (and may run a generator)",
    "builtins.iter": "makes an iterator whose use runs the object's code",
    "builtins.super": "reaches a class's methods past its own checks",
    "builtins.object": "creates a bare object to build an escape from",
    "builtins.classmethod": "builds a method descriptor",
    "builtins.staticmethod": "builds a method descriptor",
    "builtins.property": "builds a descriptor that runs code on access",
    "pandas.read_pickle": "unpickling runs code stored in the file",
    "pandas.read_sql": "queries a database",
    "pandas.read_sql_query": "queries a database",
    "pandas.read_html": "may fetch a web page and runs an HTML parser on it",
    "pandas.read_xml": "may run an XSLT stylesheet, which can read other files",
    "matplotlib.pyplot.close": "closes figures that may be yours",
    "matplotlib.pyplot.clf": "clears the current figure, which may be yours",
    "pandas.read_clipboard": "reads the clipboard",
    "pandas.eval": "evaluates an expression string",
    "numpy.save": "writes a file",
    "numpy.savez": "writes a file",
    "numpy.savez_compressed": "writes a file",
    "numpy.savetxt": "writes a file",
    "matplotlib.pyplot.savefig": "writes an image file",
    "matplotlib.pyplot.imsave": "writes an image file",
    "pickle.load": "unpickling runs code stored in the data",
    "pickle.loads": "unpickling runs code stored in the data",
    "pickle.dump": "writes a file",
    "joblib.load": "unpickling runs code stored in the file",
    "joblib.dump": "writes a file",
    "torch.load": "unpickling runs code stored in the file",
    "dill.load": "unpickling runs code stored in the file",
    "os.getenv": "reads environment variables, which hold credentials",
    "posix.getenv": "reads environment variables, which hold credentials",
    "os.environ": "reads environment variables, which hold credentials",
    # the same variables as bytes, reachable as an attribute of modules that import posix
    # (shutil.posix.environ)
    "posix.environ": "reads environment variables, which hold credentials",
    "nt.environ": "reads environment variables, which hold credentials",
}

#: modules whose every function is refused, and why (the reason shown for any of their calls)
NEVER_MODULES: dict[str, str] = {
    "os": "os changes files, processes and the environment",
    "genericpath": "os.path functions that are not plain path arithmetic",
    "posix": "os changes files, processes and the environment",
    "subprocess": "subprocess runs programs",
    "shutil": "shutil copies, moves and deletes files",
    "sys": "sys changes the interpreter's state",
    "socket": "socket opens network connections",
    "ctypes": "ctypes calls native code and writes memory",
    "importlib": "importlib imports modules (runs their code)",
    "pickle": "unpickling runs code stored in the data",
    "marshal": "loads code objects",
    "requests": "requests talks to the network",
    "urllib": "urllib talks to the network",
    "http": "http talks to the network",
    "httpx": "httpx talks to the network",
    "asyncio": "asyncio schedules code on the kernel's event loop",
    "threading": "threading starts code in the background",
    "multiprocessing": "multiprocessing starts processes",
    "signal": "signal changes how the kernel handles signals",
    "gc": "gc reaches every object in memory",
    "inspect": "inspect reaches frames and their variables",
    "builtins": "builtins holds exec, eval and __import__",
    "IPython": "IPython can run magics and shell commands",
    "random": "random advances the global random state",
    "numpy.random": "numpy.random advances the global random state",
    "tempfile": "tempfile creates files",
    "sqlite3": "sqlite3 opens and changes databases",
    "webbrowser": "webbrowser opens programs",
}

#: the library modules whose attribute reads and documented functions are library code
LIBRARY_MODULES = frozenset({
    "math", "statistics", "json", "re", "posixpath", "os", "glob", "textwrap", "itertools",
    "collections", "time", "datetime", "decimal", "fractions", "pathlib", "sys", "copy",
    "numpy", "pandas", "matplotlib", "string", "operator", "functools", "IPython",
})

#: a name containing one of these (case-insensitive) may hold a credential: reading it asks
SECRET_WORDS = ("password", "passwd", "secret", "token", "api_key", "apikey", "private_key",
                "access_key", "credential", "auth_key")

#: calls that write or delete a path given as their first argument (or ``path=``-like keyword):
#: not read-only in any case; their literal paths become write/delete effects for path rules
WRITERS: dict[str, str] = {
    "numpy.save": "write", "numpy.savez": "write", "numpy.savez_compressed": "write",
    "numpy.savetxt": "write", "matplotlib.pyplot.savefig": "write",
    "matplotlib.pyplot.imsave": "write", "os.remove": "delete", "os.unlink": "delete",
    "os.rmdir": "delete", "os.removedirs": "delete", "os.mkdir": "write",
    "os.makedirs": "write", "os.rename": "delete", "os.replace": "delete",
    "posix.remove": "delete", "posix.unlink": "delete", "posix.rmdir": "delete",
    "posix.mkdir": "write", "posix.rename": "delete", "posix.replace": "delete",
    "shutil.rmtree": "delete", "shutil.move": "delete", "shutil.copy": "write",
    "shutil.copy2": "write", "shutil.copyfile": "write", "shutil.copytree": "write",
    "pickle.dump": "write", "joblib.dump": "write",
}
#: methods that write to a path given as first argument (``df.to_csv("out.csv")``)
WRITER_METHODS: dict[str, str] = {
    name: "write" for name in (
        "to_csv", "to_parquet", "to_excel", "to_json", "to_pickle", "to_feather", "to_hdf",
        "to_html", "to_latex", "to_markdown", "to_stata", "to_orc", "to_xml", "to_sql",
        "tofile", "dump", "savefig", "write_text", "write_bytes", "touch", "mkdir",
        "to_netcdf", "save")
}
WRITER_METHODS.update({"unlink": "delete", "rmdir": "delete", "rename": "delete",
                       "replace": "delete"})


def never_reason(canonical: str) -> str | None:
    """Why a function is never read-only, when the tables say so (None: just not known)."""
    if canonical in NEVER:
        return NEVER[canonical]
    parts = canonical.split(".")
    for n in range(len(parts) - 1, 0, -1):
        reason = NEVER_MODULES.get(".".join(parts[:n]))
        if reason is not None:
            return reason
    return None
