from typing import Any, Callable, Optional, Sequence, Union

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
