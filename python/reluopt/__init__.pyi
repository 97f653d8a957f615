import os
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union

import numpy as np

__version__: str

class Error(ValueError): ...

class Result:
    x: np.ndarray
    outputs: np.ndarray
    trajectory: np.ndarray
    bound_trajectory: np.ndarray
    sample_values: np.ndarray
    method: str
    status: str
    objective: Optional[float]
    bound: Optional[float]
    gap: Optional[float]
    nodes: int
    local_searches: int
    mips: int
    samples: int
    lps: int
    duplicate_patterns: int
    concave_neurons: int
    lp_failures: int
    stopped_by: str
    seconds: float
    load_seconds: float
    seed: int
    threads: int
    version: str
    model: str
    domain: str
    objective_function: str
    domain_violation: float
    prover: Optional[str]
    solver_failure: Optional[str]
    proof_check: Optional[str]
    def to_dict(self) -> dict[str, Any]: ...
    def to_json(self) -> str: ...
    def __getattr__(self, name: str) -> Any: ...

class LinearExpr:
    terms: dict[tuple[int, int, int], float]
    constant: float
    def __add__(self, other: Any) -> LinearExpr: ...
    def __radd__(self, other: Any) -> LinearExpr: ...
    def __sub__(self, other: Any) -> LinearExpr: ...
    def __rsub__(self, other: Any) -> LinearExpr: ...
    def __neg__(self) -> LinearExpr: ...
    def __pos__(self) -> LinearExpr: ...
    def __mul__(self, other: Any) -> LinearExpr: ...
    def __rmul__(self, other: Any) -> LinearExpr: ...
    def __truediv__(self, other: Any) -> LinearExpr: ...
    def __le__(self, other: Any) -> Constraint: ...
    def __ge__(self, other: Any) -> Constraint: ...
    def __eq__(self, other: Any) -> Constraint: ...  # type: ignore[override]

class MaxMinExpr:
    disjuncts: list[list[LinearExpr]]

def minimum(*exprs: Any) -> MaxMinExpr: ...
def maximum(*exprs: Any) -> MaxMinExpr: ...

class Constraint:
    expr: LinearExpr
    sense: str
    rhs: float
    name: str

class Vector:
    name: str
    coordinates: list[int]
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[LinearExpr]: ...
    def __getitem__(self, key: Any) -> Any: ...
    def sum(self) -> LinearExpr: ...
    def __matmul__(self, coefficients: Any) -> LinearExpr: ...
    def __rmatmul__(self, coefficients: Any) -> LinearExpr: ...

class ModelResult(Result):
    def __getitem__(self, key: Union[Vector, LinearExpr, str]) -> Any: ...

class Model:
    variables: dict[str, Vector]
    networks: dict[str, Vector]
    source: str
    sense: str
    objective: Union[LinearExpr, MaxMinExpr]
    constraints: list[Constraint]
    def __init__(self, sense: str = ...) -> None: ...
    def add_variables(self, size: Optional[int] = ..., lower: Any = ..., upper: Any = ..., integer: Any = ...,
                      name: Optional[str] = ...) -> Vector: ...
    def add_network(self, network: Any, inputs: Any, name: Optional[str] = ...) -> Vector: ...
    def add_constraint(self, constraint: Union[Constraint, Iterable[Constraint]], name: Optional[str] = ...) -> Any: ...
    def add_constraints(self, constraint: Union[Constraint, Iterable[Constraint]],
                        name: Optional[str] = ...) -> Any: ...
    def set_objective(self, expr: Any, sense: Optional[str] = ...) -> None: ...
    def maximize(self, expr: Any) -> None: ...
    def minimize(self, expr: Any) -> None: ...
    def solve(self, method: str = ..., time_limit: Optional[float] = ..., threads: Optional[int] = ...,
              seed: int = ..., progress: Union[None, bool, Callable[[dict[str, Any]], Any]] = ...,
              record_values: bool = ..., **options: Any) -> ModelResult: ...
    def write(self, path: Union[str, os.PathLike[str]]) -> None: ...

def read_problem(path: Union[str, os.PathLike[str]]) -> Model: ...

class EvtReport:
    values: np.ndarray
    n: int
    min: float
    max: float
    fits: list[dict[str, Any]]
    gamma: dict[str, Any]
    endpoint: Optional[dict[str, Any]]
    sample_complexity: dict[str, Any]
    def to_dict(self) -> dict[str, Any]: ...
    def to_json(self) -> str: ...
    def plot(self, ax: Any = ..., top: int = ...) -> Any: ...
    def __getattr__(self, name: str) -> Any: ...

def solve(
    model: Any,
    lower: Optional[Sequence[float]] = ...,
    upper: Optional[Sequence[float]] = ...,
    A: Optional[Any] = ...,
    b: Optional[Sequence[float]] = ...,
    objective: Union[int, Sequence[float], dict[str, Any]] = ...,
    sense: str = ...,
    method: str = ...,
    time_limit: Optional[float] = ...,
    threads: Optional[int] = ...,
    seed: int = ...,
    progress: Union[None, bool, Callable[[dict[str, Any]], Any]] = ...,
    constant: float = ...,
    record_values: bool = ...,
    *,
    samples: int = ...,
    stop_rule: Optional[tuple[float, float]] = ...,
    hit_and_run_thinning: int = ...,
    concave_neurons: str = ...,
    local_search: str = ...,
    gap: float = ...,
    eps: float = ...,
    max_free: int = ...,
    node_limit: int = ...,
    mip_share: float = ...,
    prover: str = ...,
    first_proof: float = ...,
    ascent_steps: int = ...,
    perturbations: int = ...,
    perturbation_radius: float = ...,
    check_proof: bool = ...,
    input_split_dims: int = ...,
    relu_split_below: int = ...,
    bab_memory: float = ...,
    walk_iterations: int = ...,
    partitions: int = ...,
    bounds: str = ...,
    warm_start: Union[bool, str] = ...,
    warm_start_samples: int = ...,
    cut_frequency: int = ...,
    verbose: bool = ...,
) -> Result: ...
def evt(values: Sequence[float], eps: Optional[float] = ..., delta: float = ..., confidence: float = ...,
        seed: int = ..., threads: int = ...) -> EvtReport: ...
def option_names() -> list[str]: ...
def option_table() -> list[dict[str, Any]]: ...
def method_names() -> list[str]: ...
def abandoned_solver_threads() -> int: ...
