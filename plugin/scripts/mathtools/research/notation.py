"""NOTATION.md: a problem's symbols, from a preset for one of the domains plus custom entries.

A preset fills the `## Preset` section only; entries a person adds live under `## Custom`, one
bullet each (`- $symbol$ — meaning`), and survive every preset change. Anything else written into
the file by hand is left where it is.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..core import (
    BadInput,
    atomic_write,
    instantiate,
    locked,
    read_text,
    split_frontmatter,
    stamp,
    with_frontmatter,
)

CUSTOM = "custom"
GENERAL = (
    (r"\mathbb{N}", r"the natural numbers $\{1, 2, 3, \dots\}$; write $\mathbb{N}_0$ to include 0"),
    (r"\mathbb{Z}, \mathbb{Q}, \mathbb{R}, \mathbb{C}", "integers, rationals, reals, complexes"),
    (r":=", "is defined as (the new symbol on the colon side)"),
    (r"\log", "the natural logarithm"),
)
PRESETS: dict[str, tuple[tuple[str, str], ...]] = {
    "algebra": (
        (r"G, H", "groups, written multiplicatively, identity $e$"),
        (r"[G : H]", "the index of the subgroup $H$ in $G$"),
        (r"Z(G)", "the center of $G$"),
        (r"R", "a commutative ring with $1$ unless stated otherwise"),
        (r"\mathfrak{p}, \mathfrak{m}", "a prime ideal, a maximal ideal"),
        (r"k, \bar{k}", "a field and its algebraic closure"),
        (r"\operatorname{Hom}_R(M, N)", "$R$-module homomorphisms $M \\to N$"),
        (r"M \otimes_R N", "the tensor product over $R$"),
    ),
    "analysis": (
        (r"L^p(\Omega)", r"$p$-integrable functions on $\Omega$, norm $\|f\|_p$"),
        (r"C^k(\Omega)", "$k$ times continuously differentiable functions"),
        (r"X^*", "the (continuous) dual of the normed space $X$"),
        (r"\mathcal{B}(X, Y)", "bounded linear operators $X \\to Y$, operator norm $\\|T\\|$"),
        (r"\sigma(T), r(T)", "the spectrum and the spectral radius of $T$"),
        (r"\langle \cdot, \cdot \rangle", "an inner product, linear in the first argument"),
        (r"\hat{f}", "the Fourier transform of $f$"),
        (r"f \lesssim g", "$f \\le C g$ for a constant $C$ independent of the variables shown"),
    ),
    "topology": (
        (r"X \cong Y", "homeomorphic spaces"),
        (r"X \simeq Y", "homotopy equivalent spaces"),
        (r"\overline{A}, A^\circ, \partial A", "closure, interior and boundary of $A$"),
        (r"\pi_n(X, x_0)", "the $n$-th homotopy group at the base point $x_0$"),
        (r"H_n(X; R), H^n(X; R)", "singular homology and cohomology with coefficients in $R$"),
        (r"\chi(X)", "the Euler characteristic"),
        (r"S^n, D^n", "the $n$-sphere and the closed $n$-disk"),
    ),
    "number-theory": (
        (r"p, q", "primes"),
        (r"a \mid b, (a, b)", "$a$ divides $b$; the greatest common divisor"),
        (r"v_p(n)", "the $p$-adic valuation of $n$"),
        (r"\mathbb{F}_q, \mathbb{Z}_p, \mathbb{Q}_p", "finite field, $p$-adic integers, $p$-adics"),
        (r"\left(\frac{a}{p}\right)", "the Legendre symbol"),
        (
            r"\varphi, \mu, \pi(x)",
            "Euler's totient, the Möbius function, the prime-counting function",
        ),
        (r"\zeta(s), L(s, \chi)", "the Riemann zeta function, a Dirichlet $L$-function"),
        (r"\mathcal{O}_K, \operatorname{Cl}(K)", "ring of integers and class group of $K$"),
    ),
    "combinatorics": (
        (r"[n]", r"the set $\{1, \dots, n\}$"),
        (r"\binom{n}{k}", "the binomial coefficient; $\\binom{[n]}{k}$ the $k$-subsets of $[n]$"),
        (r"G = (V, E)", "a finite simple graph; $n = |V|$, $e(G) = |E|$"),
        (r"\Delta(G), \delta(G)", "maximum and minimum degree"),
        (r"\chi(G), \omega(G), \alpha(G)", "chromatic, clique and independence numbers"),
        (r"K_n, K_{s,t}", "the complete graph, the complete bipartite graph"),
        (r"R(s, t)", "the Ramsey number"),
        (r"F(x) = \sum_n a_n x^n", "the ordinary generating function of $(a_n)$"),
    ),
    "algebraic-geometry": (
        (r"k", "an algebraically closed field unless stated otherwise"),
        (r"\mathbb{A}^n_k, \mathbb{P}^n_k", "affine and projective $n$-space over $k$"),
        (r"\operatorname{Spec} A", "the prime spectrum of the ring $A$"),
        (r"(X, \mathcal{O}_X)", "a scheme and its structure sheaf"),
        (r"V(I), I(V)", "the zero locus of an ideal, the ideal of a set"),
        (r"H^i(X, \mathcal{F})", "sheaf cohomology of the sheaf $\\mathcal{F}$"),
        (r"\operatorname{Pic}(X), K_X", "the Picard group, the canonical divisor"),
        (r"\Omega_{X/k}", "the sheaf of relative differentials"),
    ),
    "differential-geometry": (
        (r"M^n", "a smooth manifold of dimension $n$, Hausdorff and second countable"),
        (r"T_pM, TM, T^*M", "tangent space at $p$, tangent and cotangent bundles"),
        (r"\Omega^k(M), d", "smooth $k$-forms and the exterior derivative"),
        (r"[X, Y], \mathcal{L}_X", "the Lie bracket of vector fields, the Lie derivative"),
        (r"(M, g), \nabla", "a Riemannian manifold and its Levi-Civita connection"),
        (r"R, \operatorname{Ric}, s", "Riemann curvature tensor, Ricci tensor, scalar curvature"),
        (r"\exp_p", "the exponential map at $p$"),
        (r"a^i b_i", "Einstein summation over repeated indices"),
    ),
    "probability": (
        (r"(\Omega, \mathcal{F}, \mathbb{P})", "the underlying probability space"),
        (r"\mathbb{E}, \operatorname{Var}", "expectation and variance"),
        (r"\mathbf{1}_A", "the indicator of the event $A$"),
        (
            r"X_n \xrightarrow{d} X",
            "convergence in distribution ($\\xrightarrow{\\mathbb{P}}$: "
            "in probability; a.s.: almost surely)",
        ),
        (r"\mathcal{N}(\mu, \sigma^2)", "the normal law with mean $\\mu$ and variance $\\sigma^2$"),
        (r"(\mathcal{F}_t)_{t \ge 0}", "a filtration"),
        (r"(B_t)_{t \ge 0}", "standard Brownian motion"),
        (r"\text{i.i.d.}", "independent and identically distributed"),
    ),
    "logic": (
        (r"\mathcal{L}", "a first-order language"),
        (r"\mathcal{M} \models \varphi", "$\\varphi$ holds in the structure $\\mathcal{M}$"),
        (r"T \vdash \varphi", "$\\varphi$ is provable from the theory $T$"),
        (r"\operatorname{Th}(\mathcal{M})", "the complete theory of $\\mathcal{M}$"),
        (r"\operatorname{Con}(T)", "the arithmetized consistency statement for $T$"),
        (r"\omega, \aleph_\alpha", "the least infinite ordinal, the alephs"),
        (r"\Sigma^0_n, \Pi^0_n", "the levels of the arithmetical hierarchy"),
        (r"\mathsf{ZFC}, \mathsf{PA}", "Zermelo–Fraenkel set theory with choice, Peano arithmetic"),
    ),
    "theoretical-computer-science": (
        (r"n", "the input size"),
        (
            r"O(f), \Omega(f), \Theta(f)",
            "asymptotic upper, lower and tight bounds as $n \\to \\infty$",
        ),
        (r"\tilde{O}(f)", "$O(f)$ up to polylogarithmic factors"),
        (r"\mathsf{P}, \mathsf{NP}, \mathsf{PPAD}", "complexity classes"),
        (r"\{0,1\}^n", "binary strings of length $n$"),
        (r"\operatorname{poly}(n)", "some polynomial in $n$"),
        (r"G = (V, E)", "a graph; $n = |V|$, $m = |E|$"),
    ),
    "statistics": (
        (r"X_1, \dots, X_n", "an i.i.d. sample of size $n$"),
        (r"\theta, \Theta", "the parameter and the parameter space"),
        (r"\hat{\theta}_n", "an estimator of $\\theta$ from $n$ observations"),
        (r"P_\theta, \mathbb{E}_\theta", "the law and the expectation under $\\theta$"),
        (r"I(\theta)", "the Fisher information"),
        (r"\xrightarrow{d}, \xrightarrow{P}", "convergence in distribution, in probability"),
        (r"R(\theta, \hat{\theta})", "the risk of $\\hat{\\theta}$ at $\\theta$"),
    ),
    "mathematical-physics": (
        (
            r"\mathcal{H}",
            "a separable complex Hilbert space, inner product linear in the second argument",
        ),
        (r"H", r"a Hamiltonian: a self-adjoint operator on $\mathcal{H}$"),
        (r"\rho", "a density matrix: positive, trace one"),
        (r"\operatorname{Tr}, [A, B]", "the trace, the commutator $AB - BA$"),
        (r"\hbar = 1", "units with Planck's constant one"),
        (r"Z, \beta", "the partition function, the inverse temperature"),
    ),
    "numerical-analysis": (
        (r"h", "the mesh size"),
        (r"\Delta t", "the time step"),
        (r"u, u_h", "the exact and the discrete solution"),
        (r"\|u - u_h\|", "the error, in the norm stated"),
        (r"O(h^p)", "convergence of order $p$"),
        (r"\kappa(A)", "the condition number of the matrix $A$"),
    ),
    "optimization-control": (
        (r"\min_{x \in C} f(x)", "minimize $f$ over the feasible set $C$"),
        (r"\nabla f, \nabla^2 f", "the gradient and the Hessian"),
        (r"x^*", "a minimizer"),
        (r"\dot{x} = f(x, u)", "the control system, state $x$, control $u$"),
        (r"J(u)", "the cost functional"),
        (r"\mathcal{L}(x, \lambda)", r"the Lagrangian with multipliers $\lambda$"),
    ),
    "dynamical-systems": (
        (r"f: X \to X", "the map; $f^n$ its $n$-th iterate"),
        (r"\varphi_t", "a flow"),
        (r"\mu", "an invariant probability measure"),
        (r"h_{\mathrm{top}}(f), h_\mu(f)", "topological and measure-theoretic entropy"),
        (r"\rho(f)", "the rotation number of a circle map"),
        (r"\mathbb{T}^d", r"the $d$-torus $\mathbb{R}^d / \mathbb{Z}^d$"),
    ),
    "information-theory": (
        (r"H(X), h(X)", "entropy and differential entropy, logarithms to base 2 unless stated"),
        (r"I(X; Y)", "the mutual information"),
        (r"D(P \| Q)", "the relative entropy (Kullback–Leibler divergence)"),
        (r"C", "the channel capacity"),
        (r"X \to Y \to Z", "a Markov chain"),
        (r"R", "a rate, in bits per symbol"),
    ),
    "partial-differential-equations": (
        (r"\Omega \subset \mathbb{R}^n", r"a bounded domain, boundary $\partial\Omega$"),
        (r"\Delta", r"the Laplacian $\sum_i \partial_i^2$ (a nonpositive operator)"),
        (r"H^s, W^{k,p}", r"Sobolev spaces; $H^1_0(\Omega)$: zero trace on $\partial\Omega$"),
        (r"u_t = \partial_t u", "the time derivative"),
        (r"\nu", "the outward unit normal"),
        (r"u_0", "the initial datum"),
    ),
}

PRESET_HEADING = "## Preset"
CUSTOM_HEADING = "## Custom"
CUSTOM_ENTRY = re.compile(r"^- \$(?P<symbol>.+?)\$ — (?P<meaning>.*)$")
NO_CUSTOM = "(none yet: add one with `/math:notation add SYMBOL MEANING`)"


def _bullet(symbol: str, meaning: str) -> str:
    return f"- ${symbol}$ — {meaning}"


def preset_text(preset: str | None) -> str:
    """The Preset section's content for `preset` (a domain, or None / 'custom' for none)."""
    if preset in (None, CUSTOM):
        return "None: this problem uses only the custom notation below."
    if preset not in PRESETS:
        names = ", ".join((*PRESETS, CUSTOM))
        raise BadInput(f"unknown notation preset {preset!r}; use one of: {names}", "bad_preset")
    lines = [f"Conventions of **{preset}**, after the general ones.", ""]
    lines += [_bullet(s, m) for s, m in GENERAL + PRESETS[preset]]
    return "\n".join(lines)


def new_notation(slug: str, title: str, preset: str | None) -> str:
    return instantiate(
        "NOTATION.md",
        {"title": title, "preset": preset_text(preset), "custom": NO_CUSTOM},
        {"problem": slug, "preset": preset or CUSTOM, "updated": stamp()},
    )


def _section(body: str, heading: str) -> tuple[int, int] | None:
    """(start, end) of the text under `heading` up to the next `## ` heading, or None."""
    match = re.search(rf"^{re.escape(heading)}[ \t]*\n", body, re.MULTILINE)
    if match is None:
        return None
    following = re.search(r"^## ", body[match.end() :], re.MULTILINE)
    end = match.end() + following.start() if following else len(body)
    return match.end(), end


def replace_section(body: str, heading: str, content: str) -> str:
    """`body` with the text under `heading` replaced (the section is appended if missing)."""
    block = content.strip("\n")
    span = _section(body, heading)
    if span is None:
        return body.rstrip("\n") + f"\n\n{heading}\n\n{block}\n"
    start, end = span
    rest = body[end:]
    return body[:start] + "\n" + block + "\n" + ("\n" + rest if rest else "")


def custom_entries(body: str) -> list[dict[str, str]]:
    span = _section(body, CUSTOM_HEADING)
    if span is None:
        return []
    lines = body[span[0] : span[1]].splitlines()
    found = (CUSTOM_ENTRY.match(line.strip()) for line in lines)
    return [{"symbol": m["symbol"], "meaning": m["meaning"]} for m in found if m]


def update(
    path: Path, preset: str | None = None, add: tuple[str, str] | None = None
) -> dict[str, object]:
    """Set the preset and/or add (or redefine) one custom symbol in the NOTATION.md at `path`."""
    with locked(path):
        if not path.exists():
            raise BadInput(f"{path} does not exist", code="file_not_found")
        data, body = split_frontmatter(read_text(path, path.name), path.name)
        if preset is not None:
            body = replace_section(body, PRESET_HEADING, preset_text(preset))
            data["preset"] = preset
        if add is not None:
            symbol, meaning = (part.strip() for part in add)
            symbol = symbol.strip("$").strip()
            if not symbol or not meaning:
                raise BadInput("a custom symbol needs a symbol and a meaning", code="bad_symbol")
            if "\n" in symbol + meaning:
                raise BadInput("a symbol and its meaning must each fit on one line", "bad_symbol")
            entries = [e for e in custom_entries(body) if e["symbol"] != symbol]
            entries.append({"symbol": symbol, "meaning": meaning})
            content = "\n".join(_bullet(e["symbol"], e["meaning"]) for e in entries)
            body = _replace_custom(body, content)
        if preset is not None or add is not None:
            data["updated"] = stamp()
            atomic_write(path, with_frontmatter(data, body))
    return show(path)


def _replace_custom(body: str, content: str) -> str:
    """Rewrite the Custom section's entries, keeping any prose a person wrote around them."""
    span = _section(body, CUSTOM_HEADING)
    if span is None:
        return replace_section(body, CUSTOM_HEADING, content)
    kept = [
        line
        for line in body[span[0] : span[1]].splitlines()
        if not CUSTOM_ENTRY.match(line.strip()) and line.strip() != NO_CUSTOM
    ]
    prose = "\n".join(kept).strip("\n")
    return replace_section(body, CUSTOM_HEADING, (prose + "\n\n" if prose else "") + content)


def show(path: Path) -> dict[str, object]:
    data, body = split_frontmatter(read_text(path, path.name), path.name)
    preset = data.get("preset") or CUSTOM
    entries = (
        []
        if preset not in PRESETS
        else [{"symbol": s, "meaning": m} for s, m in GENERAL + PRESETS[preset]]
    )
    return {
        "path": str(path),
        "preset": preset,
        "preset_entries": entries,
        "custom": custom_entries(body),
    }


def presets() -> dict[str, object]:
    return {
        "presets": [*PRESETS, CUSTOM],
        "general": [{"symbol": s, "meaning": m} for s, m in GENERAL],
    }
