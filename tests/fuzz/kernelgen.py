#!/usr/bin/env python3
"""Random TPC-C kernel generator for differential testing (docs/fuzzing.md).

generate(seed, features) -> Kernel: deterministic for a seed (and the feature set). A kernel is

    prologue   globals: __local__ arrays, helper functions (fixed)
    head       main's parameters, the index-space loops, declarations of every variable (fixed)
    body       a list of *statements*, each self-contained on the declared variables: removing any subset
               leaves a valid, well-defined kernel (the shrinker of difftest.py relies on this)
    tail       the stores of every variable into the output tensors (fixed)

plus the run description: the tensors (shapes, data types, input values), the scalar arguments, the index
space and the core count.

Well-definedness (the same bits on every correct execution path):
- C arithmetic on floats (+ - * on scalars and vectors, and the reductions written with them) runs on the
  host natively, whose NaN payloads differ from the core's: it only gets operands with a known magnitude
  bound and only when the result's bound stays finite (below 1e30). Bounds only grow (running maximum) and
  are monotone in the operands', so they stay valid when the shrinker removes statements.
- float -> integer C casts only with a bound inside the target range (LLVM treats the rest as poison).
- C integer arithmetic on scalars is done in uint32_t (no signed overflow); shifts by constants below the
  width; no division by variables.
- local memory: __local__ arrays indexed by constants; the ld_l/st_l intrinsics at constant addresses
  beyond every __local__ array and the compiler's spill area (the native path keeps the two apart).
- tensor stores only at the iteration's own coordinates, so no two iterations (or cores) write one element.
"""
import random
import struct

# tag, vector, scalar, bool vector, lanes, float, signed, bits, .npy descr, -t suffix
TYPES = {
    "f32": ("float64", "float", "bool64", 64, True, True, 32, "<f4", ""),
    "bf16": ("bfloat128", "bf16", "bool128", 128, True, True, 16, "<u2", ":bf16"),
    "i32": ("int64", "int32_t", "bool64", 64, False, True, 32, "<i4", ""),
    "u32": ("uint64", "uint32_t", "bool64", 64, False, False, 32, "<u4", ""),
    "i16": ("short128", "int16_t", "bool128", 128, False, True, 16, "<i2", ""),
    "u16": ("ushort128", "uint16_t", "bool128", 128, False, False, 16, "<u2", ""),
    "i8": ("char256", "int8_t", "bool256", 256, False, True, 8, "|i1", ""),
    "u8": ("uchar256", "uint8_t", "bool256", 256, False, False, 8, "|u1", ""),
}
ALL_TYPES = list(TYPES)

# Vector converts between same-lane-count types (intrinsics/intrinsics/convert.def), f16 left out.
V_CONVERTS = [("f32", "i32"), ("f32", "u32"), ("bf16", "i16"), ("bf16", "u16"), ("i32", "f32"), ("i32", "u32"),
              ("u32", "f32"), ("u32", "i32"), ("i16", "u16"), ("i16", "bf16"), ("u16", "bf16"), ("u16", "i16"),
              ("i8", "u8"), ("u8", "i8")]
# Scalar converts (all pairs of our types except f16 and the i8 -> f16 oddity).
S_CONVERTS = [(a, b) for a in ALL_TYPES for b in ALL_TYPES if a != b]
# sel_<cc>_<t>: (result, compared) pairs of the same width.
SEL_PAIRS = [(r, t) for r in ("f32", "i32", "u32") for t in ("f32", "i32", "u32")] + \
    [(r, t) for r in ("bf16", "i16", "u16") for t in ("bf16", "i16", "u16")] + \
    [(r, t) for r in ("i8", "u8") for t in ("i8", "u8")]
CMP = ["eq", "neq", "less", "leq", "grt", "geq"]
C_CMP = ["<", "<=", "==", "!=", ">", ">="]
ROUNDING = ["0", "SW_RZ", "SW_RU", "SW_RD", "SW_RHAZ"]
# "widen": the pair / quad type of an integer product, and the 32-bit type whose lanes hold its members.
WIDE = {"i32": ("int128", "i32"), "u32": ("uint128", "u32"), "i16": ("int128", "i32"), "u16": ("uint128", "u32"),
        "i8": ("int256", "i32"), "u8": ("uint256", "u32")}
# Down-converts with a lane and up-converts (convert.def), among the generator's types.
LANE_CONVERTS = [("i32", "i16"), ("i32", "u16"), ("i32", "i8"), ("i32", "u8"), ("u32", "i16"), ("u32", "u16"),
                 ("u32", "i8"), ("u32", "u8"), ("u32", "bf16"), ("i32", "bf16"), ("i16", "i8"), ("i16", "u8"),
                 ("u16", "i8"), ("u16", "u8"), ("f32", "i16"), ("f32", "i8"), ("f32", "u16"), ("f32", "u8")]
UP_CONVERTS = [("i16", "f32"), ("i16", "i32"), ("i16", "u32"), ("u16", "f32"), ("u16", "i32"), ("u16", "u32"),
               ("bf16", "i32"), ("bf16", "u32"), ("i8", "f32"), ("i8", "i32"), ("i8", "u32"), ("i8", "i16"),
               ("i8", "u16")]
FIXED_CONVERTS = [("int32", "i32", "i16"), ("int32", "i32", "i8"), ("uint32", "u32", "u16"), ("uint32", "u32", "u8"),
                  ("int16", "i16", "i8"), ("uint16", "u16", "u8")]

NVEC, NSCAL = 3, 2            # vector and scalar variables per type
SLOT_S0, SLOT_S1, SLOT_P, SLOT_PART = 3, 4, 5, 6
NSLOTS = 7                    # output slots per type (dimension 2 of out_<t>)
LOCAL_BOUND = 64.0            # floats stored in __local__ arrays are at most this in magnitude
INPUT_BOUND = 8.0
C_LIMIT = 1e30                # C float arithmetic only while the result's bound stays below this
VLM_INTRINSIC_BASE = 64 * 1024  # vector local memory addresses of v_<t>_ld_l_v / st_l_v (80 KiB in all)
SLM_INTRINSIC_BASE = 768        # scalar local memory addresses of s_<t>_ld_l / st_l (1 KiB in all)

# Features the generator can turn off (all on by default). A feature that is off only because of an open
# bug says so here and in docs/fuzzing.md.
FEATURES = {
    "c_float": "C arithmetic on float scalars and vectors (bounded operands)",
    "c_int": "C arithmetic, shifts and comparisons on integer scalars and vectors",
    "intrinsics": "vector and scalar arithmetic intrinsics, with scalar and vector predicates and incomes",
    "compare": "comparisons into bool vectors and scalar bools, predicate logic",
    "select": "v_<r>_sel_<cc>_<t> and C ?: on scalars",
    "convert": "vector and scalar convert intrinsics with rounding modes, C casts",
    "local": "__local__ arrays and the ld_l/st_l intrinsics",
    "index": "int5 arithmetic (i_i32_*, C operators, lanes) and loads at computed coordinates",
    "tensor": "extra tensor loads, partial loads and partial / rmw / low / high stores",
    "helpers": "helper functions",
    "control": "if statements and counted loops around statements",
    "reduce": "lane reductions v_<t>_reduce_*",
    "dimsize": "get_dim_size of the input tensors",
    "loops": "counted loops around statements (found an empty hardware loop from a dead loop body: "
             "tests/regressions/seed115)",
    "local_scalar": "__local__ scalar arrays (found a <4 x float> load of a whole array: "
                    "tests/regressions/seed124)",
    "widen": "integer mul/mac with pair and quad results, lane down-converts, up-converts, ash and the "
             "fixed-point converts (off by default so that the default seeds stay those of the 5,000-seed run)",
}
# Features off by default: none because of open bugs (tests/fuzz/open/); "widen" came after the 5,000-seed
# run of the default features and is run as its own batch (docs/fuzzing.md).
DEFAULT_OFF = {"widen"}
DROPPED = "/* statement left out: feature '%s' is off */"


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def cfloat(x):
    """A C float literal of an exactly representable value."""
    r = repr(float(x))
    if "e" not in r and "." not in r:
        r += ".0"
    return r + "f"


class Kernel:
    def __init__(self):
        self.seed = 0
        self.prologue = []    # lines
        self.head = []        # lines
        self.body = []        # statements: each a list of lines (indented for the inner loop)
        self.tail = []        # lines
        self.close = []       # lines
        self.tensors = []     # dicts: name, dtype, shape (NumPy order), input values (None: output)
        self.scalars = []     # (C type, text value)
        self.index_space = None
        self.cores = None

    def source(self, body=None):
        body = self.body if body is None else body
        lines = ["// generated by tests/fuzz/kernelgen.py, seed %d" % self.seed]
        lines += self.prologue + self.head
        for st in body:
            lines += st
        lines += self.tail + self.close
        return "\n".join(lines) + "\n"


class Gen:
    def __init__(self, seed, features):
        self.seed = seed
        self.r = random.Random(seed)
        self.features = set(features)
        self.k = Kernel()
        self.k.seed = seed
        self.bound = {}       # float variable -> magnitude bound (None: anything, NaN included)
        self.helpers = []     # (name, type tag)
        self.locals_v = {}    # type tag -> __local__ vector array length
        self.locals_s = {}    # type tag -> __local__ scalar array length

    def on(self, f):
        return f in self.features

    # ------------------------------------------------------------------------------------- helpers

    def pick(self, xs):
        return self.r.choice(xs)

    def vec(self, t):
        return "%s_v%d" % (t, self.r.randrange(NVEC))

    def scal(self, t):
        return "%s_s%d" % (t, self.r.randrange(NSCAL))

    def b(self, name):
        return self.bound.get(name)

    def setb(self, name, value):
        """Running maximum: a bound never decreases (see the module docstring)."""
        if not TYPES[name.split("_")[0]][4]:
            return
        old = self.bound.get(name, 0.0)
        if old is None or value is None or value > C_LIMIT:
            self.bound[name] = None
        else:
            self.bound[name] = max(old, value * 1.01)

    def fval(self, t):
        """A small float constant (exact in bf16)."""
        return self.pick([0.0, 0.5, 1.0, -1.0, 2.0, -0.25, 3.0, 0.125, -4.0, 1.5])

    def const(self, t):
        """A constant of type t as C text, and its magnitude."""
        vt, st, _, _, isf, signed, bits = TYPES[t][:7]
        if isf:
            v = self.fval(t)
            return ("(bf16)" + cfloat(v)) if t == "bf16" else cfloat(v), abs(v)
        lo = -(1 << (bits - 1)) if signed else 0
        hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        v = self.pick([0, 1, 2, 3, 7, -1, -128, 100, hi, lo, self.r.randint(lo, hi)])
        v = max(lo, min(hi, v))
        if t == "u32":
            return "%du" % v, 0
        if t == "i32" and v == lo:
            return "(-2147483647 - 1)", 0
        return "(%s)%d" % (st, v), 0

    def pred(self, t):
        """(predicate argument, polarity) for an intrinsic of type t: none, scalar or vector."""
        kind = self.r.randrange(4)
        if kind == 0:
            return None, None
        if kind == 1:
            return "b%d" % self.r.randrange(2), str(self.r.randrange(2))
        return "%s_p%d" % (t, self.r.randrange(2)), str(self.r.randrange(2))

    def call(self, name, t, args, dst, unary_income_default=False):
        """An intrinsic call with an optional predicate and an income (dst's current value)."""
        p, pol = self.pred(t)
        if p is None:
            return "%s_b(%s)" % (name, ", ".join(args))
        form = "vb" if p.startswith(t + "_p") else "b"
        return "%s_%s(%s, 0, %s, %s, %s)" % (name, form, ", ".join(args), dst, p, pol)

    # ------------------------------------------------------------------------------------ statements

    def stmt(self, kinds):
        """One statement of a random kind among those enabled: list of C lines (no indentation)."""
        for _ in range(50):
            kind = self.pick(kinds)
            lines = getattr(self, "s_" + kind)()
            if lines:
                return lines
        return None

    def s_vbinary(self):
        t = self.pick(self.types)
        isf, signed = TYPES[t][4], TYPES[t][5]
        ops = ["add", "sub", "max", "min", "and", "or", "xor"] + (["mul"] if isf else [])
        op = self.pick(ops)
        d, a = self.vec(t), self.vec(t)
        bsrc = self.pick(["vec", "vec", "scal", "const"])
        if bsrc == "vec":
            bb = self.vec(t)
            bnd = self.b(bb)
        elif bsrc == "scal":
            bb = self.scal(t)
            bnd = self.b(bb)
        else:
            bb, bnd = self.const(t)
        if isf:
            ba = self.b(a)
            if op in ("and", "or", "xor") or ba is None or bnd is None:
                res = None
            elif op in ("add", "sub"):
                res = ba + bnd
            elif op == "mul":
                res = ba * bnd
            else:
                res = max(ba, bnd)
            self.setb(d, max(res, self.b(d) or 0) if res is not None else None)
        return ["%s = %s;" % (d, self.call("v_%s_%s" % (t, op), t, [a, bb], d))]

    def s_vunary(self):
        t = self.pick(self.types)
        isf, signed = TYPES[t][4], TYPES[t][5]
        ops = ["not", "mov"] + (["abs"] if signed else [])
        op = self.pick(ops)
        d, a = self.vec(t), self.vec(t)
        if isf:
            self.setb(d, None if op == "not" else self.b(a))
        return ["%s = %s;" % (d, self.call("v_%s_%s" % (t, op), t, [a], d))]

    def s_vshift(self):
        ints = [t for t in self.types if not TYPES[t][4]]
        if not ints:
            return None
        t = self.pick(ints)
        bits = TYPES[t][6]
        shv = {32: "int64", 16: "short128", 8: "char256"}[bits]
        d, a = self.vec(t), self.vec(t)
        amount = self.r.randrange(bits)
        sig = {32: "i32", 16: "i16", 8: "i8"}[bits]
        if sig in self.types and self.r.randrange(2):
            # a variable shift amount: the intrinsic's semantics define every amount
            amt = "%s_v%d" % (sig, self.r.randrange(NVEC))
        else:
            amt = "(%s)%d" % (TYPES[sig][1], amount)
        return ["%s = %s;" % (d, self.call("v_%s_%s" % (t, self.pick(["shl", "shr"])), t, [a, amt], d))]

    def s_vfma(self):
        fl = [t for t in self.types if TYPES[t][4]]
        if not fl:
            return None
        t = self.pick(fl)
        d, a, b, c = self.vec(t), self.vec(t), self.vec(t), self.vec(t)
        ba, bb, bc, bd = self.b(a), self.b(b), self.b(c), self.b(d)
        if self.r.randrange(2):
            res = None if None in (ba, bb, bd) else bd + ba * bb
            self.setb(d, res)
            return ["%s = %s;" % (d, self.mac(t, a, b, d))]
        res = None if None in (ba, bb, bc, bd) else max(bd, ba * bb + bc)
        self.setb(d, res)
        return ["%s = %s;" % (d, self.call("v_%s_madd" % t, t, [a, b, c], d))]

    def mac(self, t, a, b, d):
        p, pol = self.pred(t)
        if p is None:
            return "v_%s_mac_b(%s, %s, %s)" % (t, a, b, d)
        form = "vb" if p.startswith(t + "_p") else "b"
        return "v_%s_mac_%s(%s, %s, %s, 0, %s, %s)" % (t, form, a, b, d, p, pol)

    def s_sbinary(self):
        t = self.pick(self.types)
        isf = TYPES[t][4]
        ops = ["add", "sub", "max", "min", "and", "or", "xor"] + (["mul"] if isf or t in ("i32", "u32") else [])
        op = self.pick(ops)
        d, a = self.scal(t), self.scal(t)
        if self.r.randrange(3):
            bb = self.scal(t)
            bnd = self.b(bb)
        else:
            bb, bnd = self.const(t)
        if isf:
            ba = self.b(a)
            if op in ("and", "or", "xor") or ba is None or bnd is None:
                res = None
            elif op == "mul":
                res = ba * bnd
            elif op in ("add", "sub"):
                res = ba + bnd
            else:
                res = max(ba, bnd)
            self.setb(d, None if res is None else max(res, self.b(d) or 0))
        p = self.r.randrange(3)
        if p == 0:
            return ["%s = s_%s_%s(%s, %s, 0, %s, b%d, %d);" % (d, t, op, a, bb, d, self.r.randrange(2),
                                                             self.r.randrange(2))]
        return ["%s = s_%s_%s(%s, %s);" % (d, t, op, a, bb)]

    def s_cfloat(self):
        fl = [t for t in self.types if TYPES[t][4]]
        if not fl:
            return None
        t = self.pick(fl)
        vector = self.r.randrange(2)
        pickv = self.vec if vector else self.scal
        d, a, b = pickv(t), pickv(t), pickv(t)
        ba, bb, bd = self.b(a), self.b(b), self.b(d)
        if None in (ba, bb, bd):
            return None
        form = self.r.randrange(5)
        if form == 0:
            res, text = ba + bb, "%s + %s" % (a, b)
        elif form == 1:
            res, text = ba + bb, "%s - %s" % (a, b)
        elif form == 2:
            res, text = ba * bb, "%s * %s" % (a, b)
        elif form == 3:
            c, bc = self.const(t)
            res, text = ba * bc + bb, "%s * %s + %s" % (a, c, b)
        else:
            res, text = bd + ba * bb, "%s + %s * %s" % (d, a, b)
        if res * 1.01 > C_LIMIT:
            return None
        self.setb(d, res)
        if self.r.randrange(4) == 0:
            return ["%s = -(%s);" % (d, text)]
        return ["%s = %s;" % (d, text)]

    def s_cint(self):
        ints = [t for t in self.types if not TYPES[t][4]]
        if not ints:
            return None
        t = self.pick(ints)
        vt, st, _, _, _, signed, bits = TYPES[t][:7]
        if self.r.randrange(2):
            # vectors: element-wise, wrapping in the element type (Clang's vector extension)
            d, a, b = self.vec(t), self.vec(t), self.vec(t)
            op = self.pick(["+", "-", "&", "|", "^", "<<", ">>", "~", "cmp", "rot"])
            if op in ("<<", ">>"):
                return ["%s = %s %s %d;" % (d, a, op, self.r.randrange(bits))]
            if op == "rot":  # LLVM makes it a funnel shift (unsigned types)
                n = self.r.randint(1, bits - 1)
                return ["%s = (%s << %d) | (%s >> %d);" % (d, a, n, a, bits - n)]
            if op == "~":
                return ["%s = ~%s;" % (d, a)]
            if op == "cmp":
                return ["%s = (%s)(%s %s %s);" % (d, vt, a, self.pick(C_CMP), b)]
            return ["%s = %s %s %s;" % (d, a, op, b)]
        d, a, b = self.scal(t), self.scal(t), self.scal(t)
        op = self.pick(["+", "-", "*", "&", "|", "^", "<<", ">>", "/", "%", "cmp", "rot", "bswap", "sat"])
        if op in ("<<", ">>"):
            return ["%s = (%s)((uint32_t)%s %s %d);" % (d, st, a, op, self.r.randrange(32))]
        # Idioms LLVM turns into its bit intrinsics: a rotate (funnel shift), a byte swap, saturating
        # subtraction and addition.
        if op == "rot":
            n = self.r.randrange(32)
            return ["%s = (%s)(((uint32_t)%s << %d) | ((uint32_t)%s >> ((32 - %d) & 31)));" % (d, st, a, n, a, n)]
        if op == "bswap":
            x = "(uint32_t)%s" % a
            return ["%s = (%s)((%s >> 24) | ((%s >> 8) & 0xff00u) | ((%s << 8) & 0xff0000u) | (%s << 24));"
                    % (d, st, x, x, x, x)]
        if op == "sat":
            x, y = "(uint32_t)%s" % a, "(uint32_t)%s" % b
            if self.r.randrange(2):
                return ["%s = (%s)(%s > %s ? %s - %s : 0u);" % (d, st, x, y, x, y)]
            return ["%s = (%s)(%s + %s < %s ? 0xffffffffu : %s + %s);" % (d, st, x, y, x, x, y)]
        if op in ("/", "%"):
            return ["%s = (%s)((uint32_t)%s %s %du);" % (d, st, a, op, self.r.randint(1, 13))]
        if op == "cmp":
            return ["%s = (%s)(%s %s %s);" % (d, st, a, self.pick(C_CMP), b)]
        return ["%s = (%s)((uint32_t)%s %s (uint32_t)%s);" % (d, st, a, op, b)]

    def s_vcmp(self):
        t = self.pick(self.types)
        d = "%s_p%d" % (t, self.r.randrange(2))
        a, b = self.vec(t), self.pick([self.vec(t), self.scal(t)])
        cc = self.pick(CMP)
        form = self.r.randrange(3)
        if form == 0:
            return ["%s = v_%s_cmp_%s_b(%s, %s);" % (d, t, cc, a, b)]
        if form == 1:
            q = "%s_p%d" % (t, self.r.randrange(2))
            return ["%s = v_%s_cmp_%s_vb(%s, %s, 0, %s, %s, %d);" % (d, t, cc, a, b, d, q, self.r.randrange(2))]
        # predicate logic on the bool256 view
        q, r = "%s_p%d" % (t, self.r.randrange(2)), "%s_p%d" % (t, self.r.randrange(2))
        bt = TYPES[t][2]
        to = {"bool64": ("from_bool64", "to_bool64"), "bool128": ("from_bool128", "to_bool128"),
              "bool256": ("", "")}[bt]
        op = self.pick(["and", "or", "xor", "not", "mov_i1"])
        if op == "not":
            e = "v_i1_not_b(%s(%s))" % (to[0], q)
        elif op == "mov_i1":
            e = "v_i1_mov_i1_b(b%d)" % self.r.randrange(2)
        else:
            e = "v_i1_%s_b(%s(%s), %s(%s))" % (op, to[0], q, to[0], r)
        return ["%s = %s(%s);" % (d, to[1], e)]

    def s_scmp(self):
        t = self.pick(self.types)
        d = "b%d" % self.r.randrange(2)
        a, b = self.scal(t), self.scal(t)
        form = self.r.randrange(4)
        if form == 0:
            return ["%s = s_%s_cmp_%s(%s, %s);" % (d, t, self.pick(CMP), a, b)]
        if form == 1:
            return ["%s = %s %s %s;" % (d, a, self.pick(C_CMP), b)]
        if form == 2:
            return ["%s = s_i1_%s(b0, b1);" % (d, self.pick(["and", "or", "xor"]))]
        return ["%s = s_i1_not(b%d);" % (d, self.r.randrange(2))]

    def s_select(self):
        if self.r.randrange(3) == 0:
            t = self.pick(self.types)
            d, a, b = self.scal(t), self.scal(t), self.scal(t)
            self.setb(d, None if None in (self.b(a), self.b(b)) else max(self.b(a), self.b(b)))
            return ["%s = b%d ? %s : %s;" % (d, self.r.randrange(2), a, b)]
        pairs = [(r, t) for r, t in SEL_PAIRS if r in self.types and t in self.types]
        if not pairs:
            return None
        r, t = self.pick(pairs)
        d = self.vec(r)
        a, b = self.vec(t), self.pick([self.vec(t), self.scal(t)])
        c, e = self.vec(r), self.vec(r)
        bc, be = self.b(c), self.b(e)
        self.setb(d, None if None in (bc, be) else max(bc, be))
        return ["%s = %s;" % (d, self.call("v_%s_sel_%s_%s" % (r, self.pick(CMP), t), r, [a, b, c, e], d))]

    def s_vconvert(self):
        pairs = [(a, b) for a, b in V_CONVERTS if a in self.types and b in self.types]
        if not pairs:
            return None
        a, b = self.pick(pairs)
        src, d = self.vec(a), self.vec(b)
        rm = self.pick(ROUNDING) if TYPES[a][4] or TYPES[b][4] else "0"
        if TYPES[b][4]:
            self.setb(d, 2.0 ** 32)
        if self.r.randrange(4) == 0 and TYPES[a][0] != TYPES[b][0]:
            return ["%s = convert_%s_to_%s(%s, %s);" % (d, TYPES[a][0], TYPES[b][0], src, rm)]
        p, pol = self.pred(b)
        if p is not None and p.startswith(b + "_p"):
            return ["%s = v_convert_%s_to_%s_vb(%s, %s, %s, %s, %s);" % (d, a, b, src, rm, d, p, pol)]
        return ["%s = v_convert_%s_to_%s_b(%s, %s);" % (d, a, b, src, rm)]

    def s_sconvert(self):
        pairs = [(a, b) for a, b in S_CONVERTS if a in self.types and b in self.types]
        if not pairs:
            return None
        a, b = self.pick(pairs)
        src, d = self.scal(a), self.scal(b)
        if TYPES[b][4]:
            self.setb(d, 2.0 ** 32)
        if self.r.randrange(2):
            rm = self.pick(ROUNDING) if TYPES[a][4] or TYPES[b][4] else self.pick(["0", "SW_SAT"])
            return ["%s = s_convert_%s_to_%s(%s, %s);" % (d, a, b, src, rm)]
        # a C cast: float -> integer only inside the target's range
        st = TYPES[b][1]
        if TYPES[a][4] and not TYPES[b][4]:
            bnd = self.b(src)
            if bnd is None or bnd >= 2.0 ** 30:
                return None
            return ["%s = (%s)(int32_t)%s;" % (d, st, src)]
        return ["%s = (%s)%s;" % (d, st, src)]

    # --------------------------------------------------------------------------------- widen

    def shift_arg(self):
        """A char256 shift operand: an i8 vector when there is one, else a small constant."""
        if "i8" in self.types and self.r.randrange(2):
            return self.vec("i8")
        return "(char)%d" % self.pick([0, 1, 3, -2, -7, 9, 31, -33])

    def s_widen(self):
        ints = [t for t in self.types if t in WIDE]
        kind = self.r.randrange(5)
        if kind == 0 and ints:  # mul / mac into a pair or quad; one member back into a vector of t
            t = self.pick(ints)
            rt, lanes32 = WIDE[t]
            members = 4 if t in ("i8", "u8") else 2
            a, b, d = self.vec(t), self.pick([self.vec(t), self.scal(t)]), self.vec(t)
            m = self.r.randint(1, members)
            if t in ("i32", "u32"):
                return ["%s = v_%s_mul_b(%s, %s).v%d;" % (d, t, a, b, m)]
            acc = "{%s}" % ", ".join(self.pick(["0", "%s_v%d" % (lanes32, 0)]) if lanes32 in self.types else "0"
                                      for _ in range(members))
            p, pol = self.pred(t)
            if self.r.randrange(2):
                prod = "v_%s_mac_b(%s, %s, (%s)%s, %s)" % (t, a, b, rt, acc, self.pick(["0", "SW_SAT"]))
                if p is not None:
                    form = "vb" if p.startswith(t + "_p") else "b"
                    prod = "v_%s_mac_%s(%s, %s, (%s)%s, 0, %s, %s)" % (t, form, a, b, rt, acc, p, pol)
            else:
                prod = "v_%s_mul_b(%s, %s)" % (t, a, b)
            lane = self.r.randrange(4 if t in ("i8", "u8") else 2)
            return ["{ %s w = %s;" % (rt, prod),
                    "  %s = v_convert_%s_to_%s_b(w.v%d, %d, %s, %s); }" % (d, lanes32, t, m, lane,
                                                                         self.pick(["0", "SW_SAT"]), d)]
        if kind == 1 and ints:  # ash
            t = self.pick(ints)
            a, d = self.vec(t), self.vec(t)
            sw = self.pick(["0", "SW_SAT", "SW_RHU", "SW_SAT | SW_RHU"])
            return ["%s = v_%s_ash_b(%s, %s, %s);" % (d, t, a, self.shift_arg(), sw)]
        if kind == 2:  # lane down-convert
            pairs = [(x, y) for x, y in LANE_CONVERTS if x in self.types and y in self.types]
            if not pairs:
                return None
            x, y = self.pick(pairs)
            src, d = self.vec(x), self.vec(y)
            lane = self.r.randrange(TYPES[x][6] // TYPES[y][6])
            rm = self.pick(ROUNDING) if TYPES[x][4] or TYPES[y][4] else self.pick(["0", "SW_SAT"])
            if TYPES[y][4]:
                self.setb(d, 2.0 ** 32)
            p, pol = self.pred(x)
            # the reference types the predicate of f32 -> i16 / i8 by result lanes, the others by source lanes
            typed = {"i16": "bool128", "i8": "bool256"}.get(y) if x == "f32" and y in ("i16", "i8") else TYPES[x][2]
            if p is not None and p.startswith(x + "_p") and typed == TYPES[x][2]:
                return ["%s = v_convert_%s_to_%s_vb(%s, %d, %s, %s, %s, %s);" % (d, x, y, src, lane, rm, d, p, pol)]
            return ["%s = v_convert_%s_to_%s_b(%s, %d, %s, %s);" % (d, x, y, src, lane, rm, d)]
        if kind == 3:  # up-convert
            pairs = [(x, y) for x, y in UP_CONVERTS if x in self.types and y in self.types]
            if not pairs:
                return None
            x, y = self.pick(pairs)
            src, d = self.vec(x), self.vec(y)
            if TYPES[y][4]:
                self.setb(d, 2.0 ** 32)
            rm = self.pick(ROUNDING) if TYPES[x][4] else "0"
            p, pol = self.pred(y)
            if p is None:
                return ["%s = v_convert_%s_to_%s_b(%s, %s);" % (d, x, y, src, rm)]
            form = "vb" if p.startswith(y + "_p") else "b"
            return ["%s = v_convert_%s_to_%s_%s(%s, %s, %s, %s, %s);" % (d, x, y, form, src, rm, d, p, pol)]
        # fixed-point convert
        pairs = [(f, x, y) for f, x, y in FIXED_CONVERTS if x in self.types and y in self.types]
        if not pairs:
            return None
        f, x, y = self.pick(pairs)
        src, d = self.vec(x), self.vec(y)
        lane = self.r.randrange(TYPES[x][6] // TYPES[y][6])
        rm = self.pick(["SW_RHNE", "SW_RZ", "SW_RU", "SW_RD"])
        p, pol = self.pred(x)
        if p is not None and p.startswith(x + "_p"):
            return ["%s = v_convert_%s_to_%s_vb(%s, %s, %d, %s, %s, %s, %s);" % (d, f, y, src, self.shift_arg(), lane,
                                                                             rm, d, p, pol)]
        return ["%s = v_convert_%s_to_%s_b(%s, %s, %d, %s, %s, %s, %s);" % (d, f, y, src, self.shift_arg(), lane, rm, d,
                                                                         p or "1", pol or "0")]

    def s_local(self):
        t = self.pick(self.types)
        kind = self.r.randrange(4)
        if kind == 0:  # __local__ vector array
            n = self.locals_v.setdefault(t, self.r.randint(1, 4))
            i, v = self.r.randrange(n), self.vec(t)
            if self.r.randrange(2):
                if TYPES[t][4] and (self.b(v) is None or self.b(v) > LOCAL_BOUND):
                    return None
                return ["%s_loc[%d] = %s;" % (t, i, v)]
            self.setb(v, LOCAL_BOUND if TYPES[t][4] else 0)
            return ["%s = %s_loc[%d];" % (v, t, i)]
        if kind == 1:  # __local__ scalar array
            n = self.locals_s.setdefault(t, self.r.randint(1, 4))
            i, s = self.r.randrange(n), self.scal(t)
            if self.r.randrange(2):
                if TYPES[t][4] and (self.b(s) is None or self.b(s) > LOCAL_BOUND):
                    return None
                line = "%s_sloc[%d] = %s;" % (t, i, s)
            else:
                self.setb(s, LOCAL_BOUND if TYPES[t][4] else 0)
                line = "%s = %s_sloc[%d];" % (s, t, i)
            return [line] if self.on("local_scalar") else [DROPPED % "local_scalar"]
        if kind == 2:  # vector local memory intrinsics
            addr = VLM_INTRINSIC_BASE + 256 * self.r.randrange(8)
            v = self.vec(t)
            if self.r.randrange(2):
                p, pol = self.pred(t)
                if p is None:
                    return ["v_%s_st_l_v(%du, %s);" % (t, addr, v)]
                if p.startswith(t + "_p"):
                    return ["v_%s_st_l_v_vb(%du, %s, 0, %s, %s);" % (t, addr, v, p, pol)]
                return ["v_%s_st_l_v(%du, %s, 0, %s, %s);" % (t, addr, v, p, pol)]
            self.setb(v, None)
            return ["%s = %s;" % (v, self.call("v_%s_ld_l_v" % t, t, ["%du" % addr], v))]
        size = TYPES[t][6] // 8
        addr = SLM_INTRINSIC_BASE + 4 * self.r.randrange(60) + (self.r.randrange(4 // size) * size if size < 4 else 0)
        s = self.scal(t)
        if self.r.randrange(2):
            return ["s_%s_st_l(%du, %s);" % (t, addr, s)]
        self.setb(s, None)
        return ["%s = s_%s_ld_l(%du, 0, %s, b%d, %d);" % (s, t, addr, s, self.r.randrange(2), self.r.randrange(2))]

    def s_index(self):
        kind = self.r.randrange(6)
        if kind == 0:
            op = self.pick(["add", "sub", "mul", "max", "min", "and", "or", "xor"])
            other = self.pick(["ix", "c_%s" % self.pick(self.types)])
            return ["ix = i_i32_%s(%s, ix, %d, 0, ix, b%d, %d);" % (op, other, self.r.randint(1, 31),
                                                                 self.r.randrange(2), self.r.randrange(2))]
        if kind == 1:
            return ["ix = ix %s %s;" % (self.pick(["+", "-", "^", "&", "|"]),
                                        self.pick(["c_%s" % self.pick(self.types), "ix"]))]
        if kind == 2:
            s = self.pick([x for t in self.types if not TYPES[t][4] for x in ("%s_s0" % t, "%s_s1" % t)] or ["d0"])
            return ["ix[%d] = %s;" % (self.r.randrange(5), s)]
        if kind == 3:
            ints = [t for t in self.types if not TYPES[t][4]]
            if not ints:
                return None
            t = self.pick(ints)
            return ["%s = (%s)ix[%d];" % (self.scal(t), TYPES[t][1], self.r.randrange(5))]
        if kind == 4:
            return ["ix = set_indx(%s, ix, %d, 0);" % (self.pick(["d0", "d1", "ix[1]"]), self.r.randint(1, 31))]
        # a load at the computed coordinates: outside the tensor it reads 0 (the padding value)
        t = self.pick(self.types)
        v = self.vec(t)
        self.setb(v, INPUT_BOUND)
        return ["%s = %s;" % (v, self.call("v_%s_ld_tnsr" % t, t, ["ix", "in_%s" % t], v))]

    def s_tensor(self):
        t = self.pick(self.types)
        lanes = TYPES[t][3]
        v = self.vec(t)
        kind = self.r.randrange(6)
        c = "c_%s" % t
        if kind == 0:  # a load of the next row or the next vector
            other = self.pick(["{%s[0], %s[1] + 1, 0, 0, 0}" % (c, c), "{%s[0] + %d, %s[1], 0, 0, 0}" % (c, lanes, c)])
            self.setb(v, INPUT_BOUND)
            return ["{ int5 o = %s; %s = %s; }" % (other, v, self.call("v_%s_ld_tnsr" % t, t, ["o", "in_%s" % t], v))]
        if kind == 1:  # partial load
            size = self.r.randint(1, min(lanes, 128))
            off = self.r.randrange(min(lanes, 128) - size + 1)
            self.setb(v, INPUT_BOUND)
            p, pol = self.pred(t)
            if p is not None and p.startswith(t + "_p"):
                return ["%s = v_%s_ld_tnsr_partial_vb(%s, in_%s, %d, %d, 0, %s, %s, %s);" % (
                    v, t, c, t, size - 1, off, v, p, pol)]
            return ["%s = v_%s_ld_tnsr_partial_b(%s, in_%s, %d, %d, 0, %s);" % (v, t, c, t, size - 1, off, v)]
        o = "{ int5 o = %s; o[2] = %d; " % (c, SLOT_PART)
        if kind == 2:  # partial store
            size = self.r.randint(1, min(lanes, 128))
            off = self.r.randrange(min(lanes, 128) - size + 1)
            return [o + "v_%s_st_tnsr_partial(o, out_%s, %s, %d, %d); }" % (t, t, v, size - 1, off)]
        if kind == 3:  # read-modify-write store
            op = self.pick(["RMW_OP_ADD", "RMW_OP_MAX", "RMW_OP_MIN"])
            return [o + "v_%s_st_tnsr_rmw(o, out_%s, %s, %s | RMW_TNSR_DT | RMW_SET); }" % (t, t, v, op)]
        if kind == 4:  # halves
            return [o + "v_%s_st_tnsr_%s(o, out_%s, %s); }" % (t, self.pick(["low", "high"]), t, v)]
        p, pol = self.pred(t)
        if p is not None and not p.startswith(t + "_p"):
            return [o + "v_%s_st_tnsr(o, out_%s, %s, 0, %s, %s); }" % (t, t, v, p, pol)]
        return [o + "v_%s_st_tnsr(o, out_%s, %s); }" % (t, t, v)]

    def s_helper(self):
        if not self.helpers:
            return None
        name, t = self.pick(self.helpers)
        d, a, b = self.vec(t), self.vec(t), self.vec(t)
        self.setb(d, None)
        return ["%s = %s(%s, %s, b%d);" % (d, name, a, b, self.r.randrange(2))]

    def s_reduce(self):
        t = self.pick(self.types)
        d, a = self.vec(t), self.vec(t)
        op = self.pick(["add", "mul", "min", "max"])
        if TYPES[t][4]:
            ba = self.b(a)
            if op == "add":
                if ba is None or ba * TYPES[t][3] * 1.01 > C_LIMIT:
                    return None
                self.setb(d, ba * TYPES[t][3])
            elif op == "mul":
                if ba is None or ba > 1.0:
                    return None
                self.setb(d, 1.0)
            else:
                self.setb(d, ba)
        return ["%s = v_%s_reduce_%s(%s);" % (d, t, op, a)]

    def s_dimsize(self):
        ints = [t for t in self.types if not TYPES[t][4]]
        if not ints:
            return None
        t, u = self.pick(ints), self.pick(self.types)
        f = self.pick(["get_dim_size", "get_dim_stride"])
        return ["%s = (%s)%s(in_%s, %d);" % (self.scal(t), TYPES[t][1], f, u, self.r.randrange(3))]

    def s_control(self):
        inner = [k for k in self.kinds if k not in ("control",)]
        if self.r.randrange(2):
            cond = self.pick(["b0", "b1", "!b0", "d0 == %d" % self.r.randrange(3), "(d1 & 1)"])
            first = self.stmt(inner)
            if not first:
                return None
            lines = ["if (%s) {" % cond] + ["    " + x for x in first]
            if self.r.randrange(2):
                second = self.stmt(inner)
                if second:
                    lines += ["} else {"] + ["    " + x for x in second]
            return lines + ["}"]
        # a counted loop: bounds grow as if the statement ran n times (monotone: see s_cfloat)
        # a counted loop: no C float arithmetic inside (its bound would hold for one iteration only); the
        # float variables it writes have no bound afterwards
        n = self.r.randint(1, 5)
        saved = dict(self.bound)
        body = self.stmt([k for k in inner if k not in ("tensor", "local", "cfloat", "reduce")])
        if not body:
            return None
        for name in list(self.bound):
            if self.bound[name] != saved.get(name):
                self.bound[name] = None
        lines = ["for (int k = 0; k < %s; k++) {" % self.pick([str(n), "(d0 & 3) + 1", "%d + (int)b0" % n])]
        if not self.on("loops"):  # generated all the same, so that the other statements do not change
            return [DROPPED % "loops"]
        return lines + ["    " + x for x in body] + ["}"]

    # --------------------------------------------------------------------------------------- kernel

    def build(self):
        r, k = self.r, self.k
        n_types = r.randint(1, 3)
        self.types = sorted(r.sample(ALL_TYPES, n_types), key=ALL_TYPES.index)
        kinds = ["vbinary", "vunary", "sbinary"]
        for f, ks in (("c_float", ["cfloat"]), ("c_int", ["cint"]), ("intrinsics", ["vshift", "vfma"]),
                      ("compare", ["vcmp", "scmp"]), ("select", ["select"]), ("convert", ["vconvert", "sconvert"]),
                      ("local", ["local"]), ("index", ["index"]), ("tensor", ["tensor"]), ("helpers", ["helper"]),
                      ("control", ["control"]), ("reduce", ["reduce"]), ("dimsize", ["dimsize"]),
                      ("widen", ["widen"])):
            if self.on(f):
                kinds += ks
        self.kinds = kinds

        # run geometry: W vectors along dimension 0, R rows; ragged tensor widths
        W, R = r.randint(1, 3), r.randint(1, 3)
        k.index_space = [W, R, 1, 1, 1]
        k.cores = r.choice([1, 2, 3, 24])
        sval = r.randint(-50, 50)
        fval = r.choice([0.5, -1.25, 3.0, 0.0, 7.5])
        k.scalars = [("int", str(sval)), ("float", repr(fval))]
        params = []
        for t in self.types:
            lanes = TYPES[t][3]
            cols = max(1, W * lanes - r.choice([0, 1, 3, lanes // 2, lanes - 1, -lanes]))
            k.tensors.append({"name": "in_" + t, "dtype": t, "shape": [R + 1, cols],
                              "values": self.values(t, (R + 1) * cols)})
            params.append("tensor in_" + t)
        for t in self.types:
            lanes = TYPES[t][3]
            cols = max(1, W * lanes - r.choice([0, 1, 5, lanes // 2, lanes - 1]))
            k.tensors.append({"name": "out_" + t, "dtype": t, "shape": [NSLOTS, R, cols], "values": None})
            params.append("tensor out_" + t)
        k.tensors.append({"name": "misc", "dtype": "i32", "shape": [8, R, W * 64], "values": None})
        params.append("tensor misc")

        # helper functions
        if self.on("helpers"):
            for h in range(r.randint(0, 2)):
                t = r.choice(self.types)
                name = "helper%d_%s" % (h, t)
                vt = TYPES[t][0]
                op1, op2 = r.choice(["add", "max", "min", "xor"]), r.choice(["sub", "and", "or", "max"])
                self.helpers.append((name, t))
                k.prologue += [
                    "static %s %s(%s a, %s b, bool p)" % (vt, name, vt, vt), "{",
                    "    %s r = v_%s_%s_b(a, b);" % (vt, t, op1),
                    "    if (p)", "        r = v_%s_%s_b(r, a);" % (t, op2),
                    "    return r;", "}"]

        # declarations (fixed)
        for t in self.types:
            for i in range(NVEC):
                self.bound["%s_v%d" % (t, i)] = INPUT_BOUND
            for i in range(NSCAL):
                self.bound["%s_s%d" % (t, i)] = 4.0 + abs(fval) * 16
        ind = " " * 12
        k.head = ["void main(%s, int si, float sf)" % ", ".join(params), "{",
                  "    const int5 start = get_index_space_offset();",
                  "    const int5 end = start + get_index_space_size();",
                  "    for (int d1 = start[1]; d1 < end[1]; d1++) {",
                  "        for (int d0 = start[0]; d0 < end[0]; d0++) {"]
        for t in self.types:
            k.head.append(ind + "int5 c_%s = {d0 * %d, d1, 0, 0, 0};" % (t, TYPES[t][3]))
        k.head.append(ind + "int5 ix = {d0 * 64, d1, 0, 0, 0};")
        k.head.append(ind + "bool b0 = (d0 & 1) != 0;")
        k.head.append(ind + "bool b1 = d1 > start[1];")
        for t in self.types:
            vt, st = TYPES[t][0], TYPES[t][1]
            k.head.append(ind + "%s %s_v0 = v_%s_ld_tnsr_b(c_%s, in_%s);" % (vt, t, t, t, t))
            k.head.append(ind + "int5 n_%s = {c_%s[0], d1 + 1, 0, 0, 0};" % (t, t))
            k.head.append(ind + "%s %s_v1 = v_%s_ld_tnsr_b(n_%s, in_%s);" % (vt, t, t, t, t))
            c, _ = self.const(t)
            k.head.append(ind + "%s %s_v2 = %s;" % (vt, t, c))
            if TYPES[t][4]:
                k.head.append(ind + "%s %s_s0 = (%s)((float)(d0 * 3 - d1) * 0.5f + sf);" % (st, t, st))
                k.head.append(ind + "%s %s_s1 = (%s)(sf * (float)(si & 15));" % (st, t, st))
            else:
                k.head.append(ind + "%s %s_s0 = (%s)(d0 * 5 + d1 * 3 + si);" % (st, t, st))
                k.head.append(ind + "%s %s_s1 = (%s)(si * 7 - d0);" % (st, t, st))
            k.head.append(ind + "%s %s_p0 = v_%s_cmp_less_b(%s_v0, %s_v1);" % (TYPES[t][2], t, t, t, t))
            k.head.append(ind + "%s %s_p1 = v_%s_cmp_geq_b(%s_v1, %s_v2);" % (TYPES[t][2], t, t, t, t))

        # statements
        n = r.randint(3, 14)
        for _ in range(n):
            s = self.stmt(kinds)
            if s:
                k.body.append([ind + x for x in s])

        # __local__ arrays (after the statements chose them)
        for t, n in sorted(self.locals_v.items()):
            k.prologue.insert(0, "__local__ %s %s_loc[%d];" % (TYPES[t][0], t, n))
        for t, n in sorted(self.locals_s.items()):
            if self.on("local_scalar"):
                k.prologue.insert(0, "__local__ %s %s_sloc[%d];" % (TYPES[t][1], t, n))

        # stores (fixed)
        for t in self.types:
            vt = TYPES[t][0]
            one = "(bf16)1.0f" if t == "bf16" else "1"
            for i in range(NVEC):
                k.tail.append(ind + "{ int5 o = c_%s; o[2] = %d; v_%s_st_tnsr(o, out_%s, %s_v%d); }" % (t, i, t, t, t, i))
            k.tail.append(ind + "{ int5 o = c_%s; o[2] = %d; v_%s_st_tnsr(o, out_%s, v_%s_mov_b(%s_s0)); }" % (
                t, SLOT_S0, t, t, t, t))
            k.tail.append(ind + "{ int5 o = c_%s; o[2] = %d; v_%s_st_tnsr(o, out_%s, v_%s_mov_b(%s_s1)); }" % (
                t, SLOT_S1, t, t, t, t))
            k.tail.append(ind + "{ int5 o = c_%s; o[2] = %d; %s z = 0; %s w = %s; "
                          "v_%s_st_tnsr(o, out_%s, v_%s_mov_vb(w, 0, v_%s_mov_vb(w + w, 0, z, %s_p1, 0), %s_p0, 0)); }"
                          % (t, SLOT_P, vt, vt, one, t, t, t, t, t, t))
        k.tail.append(ind + "{ int5 o = {d0 * 64, d1, 0, 0, 0}; v_i32_st_tnsr(o, misc, (int)b0 + 2 * (int)b1); }")
        for i in range(5):
            k.tail.append(ind + "{ int5 o = {d0 * 64, d1, %d, 0, 0}; v_i32_st_tnsr(o, misc, ix[%d]); }" % (i + 1, i))
        k.close = ["        }", "    }", "}"]
        return k

    def values(self, t, n):
        r = self.r
        isf, signed, bits = TYPES[t][4], TYPES[t][5], TYPES[t][6]
        if isf:
            vals = [r.choice([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.5, 7.75, -8.0]) if r.randrange(4) == 0
                    else r.randint(-64, 64) / 8.0 for _ in range(n)]
            return vals
        lo = -(1 << (bits - 1)) if signed else 0
        hi = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        return [r.choice([lo, hi, 0, 1, -1 if signed else 2]) if r.randrange(5) == 0 else r.randint(lo, hi)
                for _ in range(n)]


def generate(seed, features=None):
    return Gen(seed, set(FEATURES) - DEFAULT_OFF if features is None else features).build()


if __name__ == "__main__":
    import sys
    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0).source())
