"""One peer tool on one problem file, in its own process (bench/models_peers.py runs it with the bench venv's
python, so a tool that crashes or overruns costs one row, not the run):

    bench/.venv-peers/bin/python bench/peers/run_peer.py --tool gurobi|scip|omlt --problem P.json \
        --time-limit 60 --threads 1 --out R.json

Each tool builds the same model from the problem file and the ONNX weights: the variables with their bounds and
integrality, one predictor per network (inputs tied to the variables it reads, outputs free), the constraints
and the objective, and solves it with `--time-limit` seconds and `--threads` threads. R.json holds status
(optimal, time_limit, infeasible, license_limit, error), the solver's objective and bound, the solver's time,
the model's build time and the point v (null when none) for the caller to re-evaluate.
"""
import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from problem_model import load_problem  # noqa: E402


def torch_sequential(layers):
    """nn.Sequential(Linear, ReLU, ..., Linear) holding the ONNX weights (float32, as stored)."""
    import torch
    mods = []
    for k, (W, b) in enumerate(layers):
        lin = torch.nn.Linear(W.shape[1], W.shape[0])
        with torch.no_grad():
            lin.weight.copy_(torch.tensor(W, dtype=torch.float32))
            lin.bias.copy_(torch.tensor(b, dtype=torch.float32))
        mods.append(lin)
        if k < len(layers) - 1:
            mods.append(torch.nn.ReLU())
    return torch.nn.Sequential(*mods).eval()


def linear(problem, a, b, v, y):
    return sum(k * v[i] for i, k in a.items()) + sum(k * y[i] for i, k in b.items())


# ---------------------------------------------------------------- Gurobi + gurobi-machinelearning

def run_gurobi(problem, limit, threads):
    import gurobipy as gp
    from gurobi_ml import add_predictor_constr
    t0 = time.time()
    env = gp.Env(params={"OutputFlag": 0})
    m = gp.Model(env=env)
    vtype = [gp.GRB.INTEGER if f else gp.GRB.CONTINUOUS for f in problem.integer]
    v = [m.addVar(lb=problem.lower[i], ub=problem.upper[i], vtype=vtype[i], name="v%d" % i)
         for i in range(problem.n)]
    y = [None] * problem.m
    for k, net in enumerate(problem.networks):
        xin = m.addMVar((1, len(net["inputs"])), lb=-gp.GRB.INFINITY, name="in%d" % k)
        out = m.addMVar((1, net["outputs"]), lb=-gp.GRB.INFINITY, name="out%d" % k)
        for j, i in enumerate(net["inputs"]):
            m.addConstr(xin[0, j] == v[i])
            xin[0, j].lb = problem.lower[i]
            xin[0, j].ub = problem.upper[i]
        add_predictor_constr(m, torch_sequential(net["layers"]), xin, out)
        m.update()
        for j in range(net["outputs"]):
            y[net["offset"] + j] = out[0, j].item()
    for c in problem.constraints:
        lhs = linear(problem, c["a"], c["b"], v, y)
        m.addConstr({"<=": lhs <= c["rhs"], ">=": lhs >= c["rhs"], "==": lhs == c["rhs"]}[c["op"]])
    m.setObjective(linear(problem, problem.obj_a, problem.obj_b, v, y) + problem.obj_c,
                   gp.GRB.MAXIMIZE if problem.sense == "max" else gp.GRB.MINIMIZE)
    m.Params.TimeLimit = limit
    m.Params.Threads = threads
    build = time.time() - t0
    try:
        m.optimize()
    except gp.GurobiError as e:
        if "size-limited" in str(e) or e.errno == gp.GRB.Error.SIZE_LIMIT_EXCEEDED:
            return {"status": "license_limit", "error": str(e), "build_seconds": build,
                    "size": {"vars": m.NumVars, "constrs": m.NumConstrs + m.NumGenConstrs}}
        raise
    status = {gp.GRB.OPTIMAL: "optimal", gp.GRB.TIME_LIMIT: "time_limit", gp.GRB.INFEASIBLE: "infeasible",
              gp.GRB.INF_OR_UNBD: "infeasible"}.get(m.Status, "status_%d" % m.Status)
    point = [x.X for x in v] if m.SolCount > 0 else None
    return {"status": status, "objective": m.ObjVal if m.SolCount > 0 else None,
            "bound": m.ObjBound if status != "infeasible" else None, "seconds": m.Runtime,
            "build_seconds": build, "v": point, "nodes": m.NodeCount,
            "size": {"vars": m.NumVars, "constrs": m.NumConstrs + m.NumGenConstrs, "ints": m.NumIntVars}}


# ---------------------------------------------------------------- SCIP + PySCIPOpt-ML

def run_scip(problem, limit, threads):
    import pyscipopt
    from pyscipopt_ml.add_predictor import add_predictor_constr
    t0 = time.time()
    m = pyscipopt.Model()
    m.hideOutput()
    v = [m.addVar(lb=problem.lower[i], ub=problem.upper[i], vtype="I" if problem.integer[i] else "C",
                  name="v%d" % i) for i in range(problem.n)]
    y = [None] * problem.m
    for k, net in enumerate(problem.networks):
        xin = np.array([[m.addVar(lb=problem.lower[i], ub=problem.upper[i], name="in%d_%d" % (k, j))
                         for j, i in enumerate(net["inputs"])]], dtype=object)
        out = np.array([[m.addVar(lb=None, ub=None, name="out%d_%d" % (k, j)) for j in range(net["outputs"])]],
                       dtype=object)
        for j, i in enumerate(net["inputs"]):
            m.addCons(xin[0, j] == v[i])
        add_predictor_constr(m, torch_sequential(net["layers"]), xin, out, unique_naming_prefix="nn%d_" % k)
        for j in range(net["outputs"]):
            y[net["offset"] + j] = out[0, j]
    for c in problem.constraints:
        lhs = linear(problem, c["a"], c["b"], v, y)
        m.addCons({"<=": lhs <= c["rhs"], ">=": lhs >= c["rhs"], "==": lhs == c["rhs"]}[c["op"]])
    # SCIP wants a linear objective expression; a constant goes into an offset.
    m.setObjective(linear(problem, problem.obj_a, problem.obj_b, v, y),
                   "maximize" if problem.sense == "max" else "minimize")
    m.addObjoffset(problem.obj_c)
    m.setParam("limits/time", limit)
    m.setParam("parallel/maxnthreads", threads)
    m.setParam("lp/threads", threads)
    build = time.time() - t0
    m.optimize()
    st = m.getStatus()
    status = {"optimal": "optimal", "timelimit": "time_limit", "infeasible": "infeasible"}.get(st, st)
    point = [m.getVal(x) for x in v] if m.getNSols() > 0 else None
    return {"status": status, "objective": m.getObjVal() if m.getNSols() > 0 else None,
            "bound": m.getDualbound() if status != "infeasible" else None, "seconds": m.getSolvingTime(),
            "build_seconds": build, "v": point, "nodes": m.getNNodes(),
            "size": {"vars": m.getNVars(), "constrs": m.getNConss()}}


# ---------------------------------------------------------------- OMLT + Pyomo + HiGHS

def run_omlt(problem, limit, threads):
    import onnx
    import pyomo.environ as pyo
    from omlt import OmltBlock
    from omlt.io.onnx import load_onnx_neural_network
    from omlt.neuralnet import ReluBigMFormulation
    t0 = time.time()
    m = pyo.ConcreteModel()
    m.I = pyo.RangeSet(0, problem.n - 1)
    m.v = pyo.Var(m.I, bounds=lambda _, i: (problem.lower[i], problem.upper[i]),
                  domain=lambda _, i: pyo.Integers if problem.integer[i] else pyo.Reals)
    m.link = pyo.ConstraintList()
    y = [None] * problem.m
    for k, net in enumerate(problem.networks):
        bounds = {(0, j): (float(problem.lower[i]), float(problem.upper[i])) for j, i in enumerate(net["inputs"])}
        netdef = load_onnx_neural_network(onnx.load(net["model"]), None, bounds)
        blk = OmltBlock()
        setattr(m, "nn%d" % k, blk)
        blk.build_formulation(ReluBigMFormulation(netdef))
        for j, i in enumerate(net["inputs"]):
            m.link.add(blk.inputs[(0, j)] == m.v[i])
        for j in range(net["outputs"]):
            y[net["offset"] + j] = blk.outputs[(0, j)]
    m.cons = pyo.ConstraintList()
    for c in problem.constraints:
        lhs = linear(problem, c["a"], c["b"], m.v, y)
        m.cons.add({"<=": lhs <= c["rhs"], ">=": lhs >= c["rhs"], "==": lhs == c["rhs"]}[c["op"]])
    m.obj = pyo.Objective(expr=linear(problem, problem.obj_a, problem.obj_b, m.v, y) + problem.obj_c,
                          sense=pyo.maximize if problem.sense == "max" else pyo.minimize)
    build = time.time() - t0
    from pyomo.contrib.appsi.solvers import Highs
    from pyomo.contrib.appsi.base import TerminationCondition
    opt = Highs()
    opt.config.time_limit = limit
    opt.config.load_solution = False
    opt.highs_options = {"threads": threads}
    t1 = time.time()
    res = opt.solve(m)
    seconds = time.time() - t1
    tc = res.termination_condition
    status = {TerminationCondition.optimal: "optimal", TerminationCondition.maxTimeLimit: "time_limit",
              TerminationCondition.infeasible: "infeasible"}.get(tc, str(tc))
    point = None
    if res.best_feasible_objective is not None:
        res.solution_loader.load_vars()
        point = [pyo.value(m.v[i]) for i in range(problem.n)]
    return {"status": status, "objective": res.best_feasible_objective, "bound": res.best_objective_bound,
            "seconds": seconds, "build_seconds": build, "v": point}


TOOLS = {"gurobi": run_gurobi, "scip": run_scip, "omlt": run_omlt}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", choices=sorted(TOOLS), required=True)
    ap.add_argument("--problem", required=True)
    ap.add_argument("--time-limit", type=float, default=60)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    problem = load_problem(args.problem)
    try:
        result = TOOLS[args.tool](problem, args.time_limit, args.threads)
    except Exception as e:  # a tool's failure is a row of the table, with its message
        result = {"status": "error", "error": "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else ""),
                  "traceback": traceback.format_exc()}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, default=float)
    return 0


if __name__ == "__main__":
    sys.exit(main())
