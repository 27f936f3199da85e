"""The read-only table: programs that only read, with every option known to be safe.

Each entry says why the program is read-only; options that are not safe carry their effect
and reason (``veto``, ``writes``, ``runs``, ``reads``). An option not listed makes the command
not read-only. Tables marked ``complete=False`` do not list every long option of the program,
so abbreviations are not resolved there (exact spellings still are).

Option lists follow GNU coreutils 9 / util-linux 2.38 (``--help`` of each program).
"""

from __future__ import annotations

from typing import Callable

from ..effects import LIST, READ, SEARCH, Effects
from ..words import Word
from .base import NONE, STRINGS, Program, lists, options, reads, runs, veto, writes
from .scanner import OPTIONAL, REQUIRED, Option, Scan

__all__ = ["TABLE"]

_HELP = "help version"


def _check_operands(argv: list[Word], parsed: Scan, effects: Effects) -> None:
    """md5sum -c FILE reads FILE (a list of names) and every file named there."""
    if parsed.has("-c"):
        for access in effects.paths:
            if access.kind == LIST:
                access.kind = READ
        effects.no("checking sums reads the files named inside the list file")


def _diff_recursive(argv: list[Word], parsed: Scan, effects: Effects) -> None:
    if parsed.has("-r"):
        for access in list(effects.paths):
            if access.kind == READ:
                effects.add(SEARCH, access.word, recursive=True)


def _date_operands(argv: list[Word], parsed: Scan, effects: Effects) -> None:
    for word in parsed.operands:
        if not (word.value or "").startswith("+"):
            effects.no("an operand other than +FORMAT sets the system date")
    effects.paths = [access for access in effects.paths if access.kind != READ or access.word in
                     [found.word for found in parsed.found if found.word is not None]]


_TAIL_FOLLOW = "follows the file forever"


def _response_files(argv: list[Word], parsed: Scan, effects: Effects) -> None:
    """binutils read more options from ``@FILE`` (a bad option quotes the file's text)."""
    for word in parsed.operands:
        value = word.value or ""
        if value.startswith("@"):
            effects.add(READ, Word(value[1:], value[1:]))
            effects.no("@FILE reads options from a file")


_XXD_VALUE = frozenset({"c", "cols", "g", "groupsize", "l", "len", "n", "name", "o", "R", "s",
                        "seek"})
_XXD_FLAG = frozenset({"a", "autoskip", "b", "bits", "C", "capitalize", "E", "EBCDIC", "e",
                       "h", "help", "i", "include", "p", "ps", "postscript", "plain", "u",
                       "v", "version", "d"})


def xxd(argv: list[Word]) -> Effects:
    """xxd reads single-dash words as whole options (``-ps``, ``-cols 8``, ``-c8``); ``-r``
    turns a dump back into a file; a second operand is the output file."""
    effects = Effects(True, "dumps bytes")
    operands: list[Word] = []
    words = argv[1:]
    i = 0
    while i < len(words):
        word = words[i]
        value = word.value or ""
        i += 1
        if word.kind != "literal":
            effects.no("xxd: an argument decided at run time")
            operands.append(word)
            continue
        if value == "--":
            operands.extend(words[i:])
            break
        if value.startswith("-") and len(value) > 1:
            name = value[1:]
            if name in ("r", "revert") or name.startswith("r"):
                effects.no("xxd -r turns a dump back into a file")
            elif name in _XXD_FLAG:
                pass
            elif name in _XXD_VALUE:
                i += 1
            elif name[:1] in ("c", "g", "l", "n", "o", "s", "R") and name[1:2].isdigit() or \
                    name[:1] in ("s", "o") and name[1:2] in ("+", "-"):
                pass
            else:
                effects.no(f"xxd {value} is not a known option")
            continue
        operands.append(word)
    if len(operands) > 1:
        effects.no("xxd's second operand is an output file")
    for word in operands[:1]:
        if word.value != "-":
            effects.add(READ, word)
    return effects

TABLE: dict[str, Callable[[list[Word]], Effects]] = {
    # --- file contents --------------------------------------------------------------------
    "cat": Program("prints files", options(
        "AbeEnstTuv", "", "show-all number-nonblank show-ends number squeeze-blank show-tabs "
        "show-nonprinting " + _HELP)),
    "tac": Program("prints files in reverse", options(
        "br", "s", "before regex " + _HELP, "separator")),
    "head": Program("prints the start of files", options(
        "qvz", "cn", "quiet silent verbose zero-terminated " + _HELP, "bytes lines",
        same="-n=--lines -c=--bytes", numbers=True)),
    "tail": Program("prints the end of files", options(
        "qvz", "cns", "quiet silent verbose zero-terminated " + _HELP,
        "bytes lines sleep-interval pid max-unchanged-stats", same="-n=--lines -c=--bytes",
        special={"-f|--follow": veto(_TAIL_FOLLOW, OPTIONAL), "-F": veto(_TAIL_FOLLOW),
                 "--retry": veto("waits for the file forever")}, numbers=True)),
    "nl": Program("numbers lines", options(
        "p", "bdfhilnsvw", "no-renumber " + _HELP,
        "body-numbering section-delimiter footer-numbering header-numbering line-increment "
        "join-blank-lines number-format number-separator starting-line-number number-width")),
    "sort": Program("sorts lines", options(
        "bdfgiMhnRrVcCmsuz", "ktST",
        "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort "
        "ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort reverse "
        "version-sort merge stable unique zero-terminated debug " + _HELP,
        "sort key field-separator buffer-size temporary-directory parallel batch-size",
        "check",
        special={"-o|--output": writes("writes the output file"),
                 "--compress-program": runs("runs a program to compress temporary files"),
                 "--files0-from": veto("reads the names of the files to read from a file",
                                       REQUIRED),
                 "--random-source": reads("reads random bytes from a file")})),
    "uniq": Program("filters repeated lines", options(
        "cdDiuz", "fsw", "count repeated ignore-case unique zero-terminated " + _HELP,
        "skip-fields skip-chars check-chars", "all-repeated group", numbers=True),
        max_operands=1),
    "cut": Program("cuts columns", options(
        "nsz", "bcdf", "complement only-delimited zero-terminated " + _HELP,
        "bytes characters delimiter fields output-delimiter")),
    "tr": Program("translates characters from stdin", options(
        "cCdst", "", "complement delete squeeze-repeats truncate-set1 " + _HELP), STRINGS),
    "paste": Program("joins lines", options("sz", "d", "serial zero-terminated " + _HELP,
                                            "delimiters")),
    "join": Program("joins files on a field", options(
        "iz", "aejotv12", "ignore-case check-order nocheck-order header zero-terminated "
        + _HELP), max_operands=2),
    "comm": Program("compares sorted files", options(
        "123z", "", "check-order nocheck-order total zero-terminated " + _HELP,
        "output-delimiter"), max_operands=2),
    "fold": Program("wraps lines", options("bs", "w", "bytes spaces " + _HELP, "width",
                                           numbers=True)),
    "fmt": Program("formats paragraphs", options(
        "cstu", "wgp", "crown-margin split-only tagged-paragraph uniform-spacing " + _HELP,
        "width goal prefix", numbers=True)),
    "expand": Program("converts tabs", options("i", "t", "initial " + _HELP, "tabs",
                                               numbers=True)),
    "unexpand": Program("converts spaces", options("a", "t", "all first-only " + _HELP,
                                                   "tabs")),
    "rev": Program("reverses lines", options("hV", "", _HELP)),
    "column": Program("formats columns", options(
        "deJLtxhV", "cEHilnNoOprRsTW", complete=False)),
    "cmp": Program("compares files byte by byte", options(
        "blsv", "in", "print-bytes verbose quiet silent " + _HELP, "ignore-initial bytes"),
        max_operands=4),
    "diff": Program("compares files", options(
        "abBcdeEfilnNpqrsStTuvwyZ", "CDFIUWx",
        "text ignore-space-change ignore-blank-lines minimal ed ignore-tab-expansion "
        "ignore-case paginate new-file normal show-c-function brief rcs recursive "
        "report-identical-files expand-tabs initial-tab unidirectional-new-file "
        "ignore-all-space side-by-side ignore-trailing-space speed-large-files "
        "strip-trailing-cr suppress-common-lines suppress-blank-empty left-column "
        "ignore-file-name-case no-ignore-file-name-case no-dereference " + _HELP,
        "ifdef show-function-line ignore-matching-lines width exclude horizon-lines label "
        "tabsize line-format old-line-format new-line-format unchanged-line-format "
        "old-group-format new-group-format unchanged-group-format changed-group-format "
        "palette starting-file",
        "context unified color",
        same="-r=--recursive",
        special={"-X|--exclude-from": reads("reads exclusion patterns from a file"),
                 "--from-file": reads("compares every operand with this file"),
                 "--to-file": reads("compares every operand with this file")}),
        check=_diff_recursive),
    "od": Program("dumps bytes", options(
        "bcdfilosvx", "AjNt", "output-duplicates traditional " + _HELP,
        "address-radix skip-bytes read-bytes endian format", "strings width",
        special={"-S": Option(REQUIRED), "-w": Option(OPTIONAL)})),
    "hexdump": Program("dumps bytes", options(
        "bcCdoxv", "ens", special={"-f": reads("reads the format from a file"),
                                   "-L": Option(OPTIONAL)}, complete=False)),
    "xxd": xxd,
    "strings": Program("prints printable strings", options(
        "adfowV", "ntesTU", "all data print-file-name include-all-whitespace " + _HELP,
        "bytes radix encoding target output-separator unicode", complete=False),
        check=_response_files),
    "base64": Program("encodes or decodes", options(
        "di", "w", "decode ignore-garbage " + _HELP, "wrap"),
        max_operands=1),
    "basenc": Program("encodes or decodes", options(
        "di", "w", "decode ignore-garbage base64 base64url base32 "
        "base32hex base16 base2msbf base2lsbf z85 " + _HELP, "wrap"), max_operands=1),
    # --- names, sizes, hashes -------------------------------------------------------------
    "ls": Program("lists directory entries", options(
        "1aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ", "ITw",
        "all almost-all author escape ignore-backups directory dired dereference "
        "dereference-command-line dereference-command-line-symlink-to-dir file-type "
        "full-time group-directories-first no-group human-readable si inode kibibytes "
        "literal numeric-uid-gid hide-control-chars show-control-chars quote-name recursive "
        "reverse size context zero " + _HELP,
        "block-size format hide ignore indicator-style quoting-style sort tabsize time "
        "time-style width", "color classify hyperlink"), LIST),
    "tree": Program("lists a directory tree", options(
        "adlfxACDFgGhnNpqQrstuUvSJX", "LPI",
        "inodes device noreport dirsfirst filesfirst prune du si nolinks gitignore "
        "matchdirs metafirst ignore-case " + _HELP,
        "charset filelimit timefmt sort",
        special={"-o": writes("writes the listing to a file"),
                 "-H": veto("writes HTML with links (with -R: files in every directory)",
                            REQUIRED),
                 "-R": veto("writes 00Tree.html files in every directory"),
                 "--fromfile": veto("reads a listing from a file"),
                 "--gitfile": reads("reads ignore patterns from a file"),
                 "--infofile": reads("reads comments from a file")},
        complete=False), LIST),
    "file": Program("identifies file types", options(
        "0bcdEhiklLnNrsvzZS", "eFP",
        "apple brief checking-printout debug dereference extension keep-going list mime "
        "mime-type mime-encoding no-buffer no-dereference no-pad no-sandbox print0 raw "
        "special-files uncompress uncompress-noreport " + _HELP,
        "exclude exclude-quiet separator parameter",
        special={"-C|--compile": veto("writes a compiled magic file"),
                 "-p|--preserve-date": veto("sets the access time of every file back"),
                 # -f echoes every line of its file; -m quotes magic lines in warnings
                 "-m|--magic-file": reads("reads a magic file (its lines are quoted in "
                                          "warnings)"),
                 "-f|--files-from": reads("reads the names to examine from a file")},
        complete=False), LIST),
    "stat": Program("prints file metadata", options(
        "Lft", "c", "dereference file-system terse " + _HELP, "format printf", "cached"),
        LIST),
    # --files0-from: unknown "names" (the file's content) are quoted in error messages
    "wc": Program("counts lines, words and bytes", options(
        "clmwL", "", "bytes chars lines words max-line-length " + _HELP, "total",
        special={"--files0-from": reads("reads the names of the files to count from a file "
                                        "(its content is quoted in errors)")}), LIST),
    "du": Program("reports disk usage", options(
        "0abcDHhklLmPSsx", "Bdt",
        "null all apparent-size bytes total dereference-args human-readable inodes "
        "dereference count-links no-dereference separate-dirs si summarize one-file-system "
        + _HELP,
        "block-size max-depth threshold time-style exclude", "time",
        special={"-X|--exclude-from": reads("reads exclusion patterns from a file"),
                 "--files0-from": reads("reads the names of the files to measure from a "
                                        "file (its content is quoted in errors)")}), LIST),
    "df": Program("reports free disk space", options(
        "ahHiklPTv", "Btx", "all human-readable si inodes local no-sync portability "
        "print-type sync total " + _HELP, "block-size type exclude-type", "output"), LIST),
    "realpath": Program("resolves paths", options(
        "eEmLPqsz", "", "canonicalize-existing canonicalize-missing logical physical quiet "
        "strip no-symlinks zero " + _HELP, "relative-to relative-base"), LIST),
    "readlink": Program("prints a link target", options(
        "efmnqsvz", "", "canonicalize canonicalize-existing canonicalize-missing no-newline "
        "quiet silent verbose zero " + _HELP), LIST),
    "basename": Program("strips a directory", options(
        "az", "s", "multiple zero " + _HELP, "suffix"), STRINGS),
    "dirname": Program("strips a file name", options("z", "", "zero " + _HELP), STRINGS),
    **{name: Program("hashes files", options(
        "bctwz", "", "binary check tag text ignore-missing quiet status strict warn zero "
        + _HELP, same="-c=--check"), LIST, check=_check_operands)
       for name in ("md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum")},
    "b2sum": Program("hashes files", options(
        "bctwz", "l", "binary check tag text ignore-missing quiet status strict warn zero "
        + _HELP, "length", same="-c=--check"), LIST, check=_check_operands),
    "shasum": Program("hashes files", options("bctU0p", "a", complete=False), LIST,
                      check=_check_operands),
    "cksum": Program("checksums files", options(
        "lrz", "a", "base64 check raw tag untagged zero debug " + _HELP, "algorithm length",
        complete=False), LIST),
    "sum": Program("checksums files", options("rs", "", "sysv " + _HELP), LIST),
    "true": Program("does nothing", options(), STRINGS),
    "false": Program("does nothing", options(), STRINGS),
    ":": Program("does nothing", options(), STRINGS),
    # --- the system and the shell ---------------------------------------------------------
    "pwd": Program("prints the working directory", options("LP"), NONE),
    "which": Program("locates programs", options("as", complete=False), STRINGS),
    "whereis": Program("locates programs", options("bmsulf", "BMS", complete=False),
                       STRINGS),
    "type": Program("describes names", options("afptP", permute=False), STRINGS),
    "date": Program("prints the date", options(
        "uR", "d", "debug rfc-email universal utc " + _HELP,
        "date rfc-3339 resolution",
        special={"-s|--set": veto("sets the system date", REQUIRED),
                 "-f|--file": reads("reads dates from a file (bad lines are quoted)"),
                 "-r|--reference": lists("shows the time of the file it names"),
                 "-I|--iso-8601": Option(OPTIONAL)}), STRINGS,
        check=_date_operands),
    "id": Program("prints user ids", options(
        "agGnruzZ", "", "context group groups name real user zero " + _HELP), STRINGS),
    "whoami": Program("prints the user name", options("", "", _HELP), STRINGS),
    "groups": Program("prints group names", options("", "", _HELP), STRINGS),
    "uname": Program("prints system information", options(
        "asnrvmpio", "", "all kernel-name nodename kernel-release kernel-version machine "
        "processor hardware-platform operating-system " + _HELP), STRINGS),
    "hostname": Program("prints the host name", options(
        "aAdfiIsyV", "", "alias all-fqdns domain fqdn long ip-address all-ip-addresses "
        "short yp nis " + _HELP,
        special={"-F|--file": veto("sets the host name from a file", REQUIRED),
                 "-b|--boot": veto("sets the host name")}, complete=False), STRINGS,
        max_operands=0),
    "arch": Program("prints the architecture", options("", "", _HELP), STRINGS),
    "nproc": Program("prints the number of CPUs", options("", "", "all " + _HELP, "ignore"),
                     STRINGS),
    "uptime": Program("prints the uptime", options("psV", "", "pretty since " + _HELP),
                      STRINGS),
    "free": Program("prints memory usage", options(
        "bkmgplhLtvwV", "c", "bytes kibi mebi gibi tebi pebi kilo mega giga tera peta human "
        "si lohi line total committed wide " + _HELP, "count",
        special={"-s|--seconds": veto("repeats forever", REQUIRED)}), STRINGS),
    "tty": Program("prints the terminal", options("s", "", "silent quiet " + _HELP), STRINGS),
    "locale": Program("prints locale settings", options("amckv", complete=False), STRINGS),
    "lscpu": Program("prints CPU information", options("abcBCJxyV", complete=False), STRINGS),
    "lsblk": Program("lists block devices", options("abdDfJlmnOpPrStTzV", "eIoxMQ",
                                                    complete=False), STRINGS),
    "pgrep": Program("finds processes", options(
        "acfilnovwxhVAq", "dgGPstuUOr", complete=False,
        special={"-F|--pidfile": reads("reads process ids from a file")}), STRINGS),
    "who": Program("lists logged-in users", options("abdHlmpqrstTuV", complete=False),
                   STRINGS),
    "w": Program("lists logged-in users", options("hisufoV", complete=False), STRINGS),
    "sleep": Program("waits", options("", "", _HELP), STRINGS),
    "seq": Program("prints a sequence", options("w", "fs", "equal-width " + _HELP,
                                                "format separator"), STRINGS),
    "expr": Program("evaluates an expression", options("", "", _HELP, permute=False), STRINGS),
    "getconf": Program("prints system configuration", options("a", "v", complete=False),
                       STRINGS),
    "lsb_release": Program("prints distribution information", options(
        "vidrcash", "", "version id description release codename all short " + _HELP),
        STRINGS),
    "ss": Program("lists sockets", options(
        "HnraloempiKstuwxSdE460Z" "bMNOVh", "fAF",
        special={"-K|--kill": veto("kills sockets"),
                 "-D|--diag": writes("dumps raw information to a file")},
        complete=False), STRINGS),
    "netstat": Program("lists sockets", options("rnaltuwxpecsivMgNoWZ", complete=False),
                       STRINGS),
    "cal": Program("prints a calendar", options("13jmysvwhV", complete=False), STRINGS),
    "ncal": Program("prints a calendar", options("13jmysvwhVbeopC", complete=False), STRINGS),
    "zcat": Program("prints compressed files", options(
        "fhlLqtvV", "S", "force help list license quiet test verbose version", "suffix"),),
    "bzcat": Program("prints compressed files", options("fhLqsvV", complete=False)),
    "xzcat": Program("prints compressed files", options("fhqQvV", "TM", complete=False)),
    "zstdcat": Program("prints compressed files", options("fhqvV", complete=False)),
    "zipinfo": Program("lists a zip archive", options("12shmlvtTMz", complete=False), LIST),
}

TABLE["dir"] = TABLE["vdir"] = TABLE["ls"]
for _name, _program in TABLE.items():
    if isinstance(_program, Program) and not _program.name:
        _program.name = _name
