"""The cluster engine of [`sweep`][difflab.sweep]: its chunks as `dask.distributed` tasks.

`sweep(..., directory=folder, client=...)` sends every chunk that is not yet on disk to the
workers of a Dask cluster, one task per chunk. A worker

1. checks, the first time it meets a study, that it runs the client's difflab version and float64
   mode and that it sees the marker file the client wrote into `folder` (a shared file system);
2. unpickles the problem (model, protocol, save times, observables, solver options) once and keeps
   it, so the jitted ensemble and observables compile once per worker process, not once per chunk;
3. writes its chunk with the same fingerprint and checksum attributes as a local run, into a
   private folder first and then renamed into place: a chunk file exists only once complete.

A worker that dies mid-chunk leaves at most its private folder behind (removed at the end of the
call); the scheduler gives the chunk to another worker, and a chunk that is still missing after a
crash of the whole run is computed by the next call. Every chunk is computed by the same code as
a local run ([`sweep`][difflab.sweep] without `client`), so the result is the same bit for bit.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import socket
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cloudpickle
import jax

from ..core.internal import Progress, optional_module
from ..data.internal import write_netcdf
from ._chunks import chunk_path, finish_chunk, run_chunk

#: Seconds to wait for a scheduler to answer (and for its first worker) before giving up.
CONNECT_TIMEOUT_S = 10.0
#: Studies (problems) a worker keeps unpickled, most recent last.
_KEEP = 4
_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
# per worker process: unpickled problems by the sha256 of their pickle (the same bytes are the same problem, so
# a later call reuses its compiled code), the calls whose checks passed here, and what the worker did (read by
# tests and users through `client.run(worker_report)`)
_PROBLEMS: dict[str, Any] = {}
_CHECKED: set[str] = set()
_REPORT: dict[str, Any] = {"compiles": 0, "chunks": []}
_LISTENING: list[bool] = []


class ClusterError(ValueError):
    """The cluster cannot run this study.

    Raised for no scheduler, no workers, a worker with another difflab version or precision, or an output folder
    that the workers cannot see.
    """


def connect(client: Any, timeout: float | None = None) -> tuple[Any, bool]:
    """A `distributed.Client` from `client` (a client, or a scheduler address) and whether we opened it.

    `timeout`: seconds to wait for the scheduler (default `CONNECT_TIMEOUT_S`).
    """
    timeout = CONNECT_TIMEOUT_S if timeout is None else timeout
    Client = optional_module("distributed", "cluster", "client=").Client
    if isinstance(client, Client):
        return client, False
    if not isinstance(client, str):
        raise TypeError(
            "client must be a distributed.Client or a scheduler address such as 'tcp://host:8786'; "
            f"got {type(client).__name__}"
        )
    try:
        return Client(client, timeout=timeout, set_as_default=False), True
    except (OSError, TimeoutError, ValueError) as err:
        raise ClusterError(
            f"client: no Dask scheduler answered at {client!r} within {timeout:g} s ({err}); start one with "
            "`dask scheduler` and pass the address it prints (tcp://host:8786)"
        ) from None


def expected_worker() -> tuple[str, bool]:
    """What every worker must match: this process's difflab version and float64 mode."""
    # the version of the package this process runs (its __version__: difflab is imported whenever this runs), read
    # through sys.modules rather than an `import difflab` that would make this module part of an import cycle
    return str(sys.modules["difflab"].__version__), bool(jax.config.read("jax_enable_x64"))


def worker_facts(marker: str, token: str) -> dict[str, Any]:
    """What a worker process runs, and whether it sees the client's marker file (run on the worker)."""
    try:
        sees = Path(marker).read_text() == token
    except OSError:
        sees = False
    version, x64 = expected_worker()
    return {"version": version, "x64": x64, "sees_folder": sees}


def refuse_mismatch(worker: str, facts: dict[str, Any], expected: tuple[str, bool], folder: Path | None) -> None:
    """Raise `ClusterError` if `worker` differs from this process or does not see `folder` (if one is needed)."""
    version, x64 = expected
    if facts["version"] != version:
        raise ClusterError(
            f"client: worker {worker} runs difflab {facts['version']} but this process runs difflab {version}; "
            "install the same version on every worker (chunks of different versions do not belong together)"
        )
    if facts["x64"] != x64:
        raise ClusterError(
            f"client: worker {worker} has jax_enable_x64={facts['x64']} but this process has {x64}; start the "
            "workers with the same JAX_ENABLE_X64 setting"
        )
    if folder is not None and not facts["sees_folder"]:
        raise ClusterError(
            f"directory: {str(folder)!r} is not shared with worker {worker} (it cannot read the marker file this "
            "process wrote there); give a folder on a file system that this process and every worker mount at "
            "the same path"
        )


def check_workers(
    client: Any, folder: Path | None, marker: Path | None, token: str, expected: tuple[str, bool]
) -> None:
    """Wait for a first worker, then check every worker now connected (later ones check themselves).

    `folder`/`marker`: the shared folder the workers must see (`None` when results come back as values).
    """
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT_S)
    except TimeoutError:
        raise ClusterError(
            f"client: the scheduler at {client.scheduler.address} has no workers after {CONNECT_TIMEOUT_S:g} s; "
            "start some with `dask worker ADDRESS`"
        ) from None
    for worker, facts in sorted(client.run(worker_facts, str(marker or ""), token).items()):
        refuse_mismatch(worker, facts, expected, folder)


def run_on_cluster(client, problem, points, todo, size, attrs, folder: Path, progress) -> None:
    """Compute the chunks `todo` (`[(i, indices), ...]`) on the cluster into `folder`."""
    client, owned = connect(client)
    token = uuid.uuid4().hex
    marker = folder / f".difflab-marker-{token}"
    marker.write_text(token)
    try:
        expected = expected_worker()
        check_workers(client, folder, marker, token, expected)
        blob = cloudpickle.dumps(problem)  # once: every task carries these bytes, not a new pickle
        problem_key = hashlib.sha256(blob).hexdigest()
        futures = {}
        for i, idx in todo:
            values = {k: v[idx] for k, v in points.items()}
            args = (token, problem_key, blob, expected, i, idx, values, size, attrs, str(folder))
            futures[client.submit(_chunk_task, *args, key=f"difflab-chunk-{i:05d}-{token[:12]}")] = i
        gather(client, futures, "sweep", "chunk {} could not be computed", progress)
    finally:
        marker.unlink(missing_ok=True)
        # private folders of this call's writers: any still here belonged to a worker that died mid-write
        for leftover in folder.glob(f".difflab-{token[:12]}-*"):
            shutil.rmtree(leftover, ignore_errors=True)
        if owned:
            client.close()


def gather(client: Any, futures: dict, desc: str, lost: str, progress: bool | None) -> dict[Any, Any]:
    """Results of `futures` (`{future: label}`) by label, with a tqdm bar over the tasks and the dashboard link.

    A task's own error (a worker's refusal, a failed solve) is raised as it is; a task lost with its workers raises
    `ClusterError` with `lost.format(label)`. Tasks still running when this returns or raises are cancelled.
    """
    as_completed = optional_module("distributed", "cluster", "client=").as_completed
    FutureCancelledError = optional_module("distributed.client", "cluster", "client=").FutureCancelledError
    KilledWorker = optional_module("distributed.scheduler", "cluster", "client=").KilledWorker
    results = {}
    bar = Progress(len(futures), desc, progress, unit="task", every=5.0)
    bar.note(f"Dask dashboard: {client.dashboard_link}")
    try:
        for future in as_completed(futures):
            try:
                results[futures[future]] = future.result()
            except (KilledWorker, FutureCancelledError) as err:
                raise ClusterError(f"{lost.format(futures[future])}: {err}") from None
            bar.advance()
    finally:
        client.cancel(list(futures))
        bar.close()
    return results


def run_blocks(
    client: Any,
    task: Callable[[Any, Any], Any],
    shared: Any,
    blocks: Callable[[int], list[tuple[Any, Any]]],
    *,
    name: str,
    desc: str,
    lost: str,
    progress,
) -> list:
    """`task(shared, part)` for every `(label, part)` of `blocks(workers)`, each a task on the cluster, in order.

    The blocks of an in-memory computation (a fit's starts, a posterior's chains) whose results come back as values.
    `client`: a `distributed.Client` or a scheduler address (a client opened here is closed here); `blocks` is
    given the number of workers connected when the work begins; `shared` travels cloudpickled, unpickled on the
    worker. Every worker is checked once per call for difflab's version and float64 mode. `name` keys the tasks
    (`difflab-<name>-00000-...`), `desc` labels the progress bar, and `lost.format(label)` names a block whose
    workers died.
    """
    client, owned = connect(client)
    try:
        expected = expected_worker()
        check_workers(client, None, None, "", expected)
        parts = blocks(max(1, len(client.scheduler_info()["workers"])))
        blob = cloudpickle.dumps((task, shared))
        token = uuid.uuid4().hex
        futures = {}
        for b, (label, part) in enumerate(parts):
            future = client.submit(_block_task, token, expected, blob, part, key=f"difflab-{name}-{b:05d}-{token[:12]}")
            futures[future] = label
        results = gather(client, futures, desc, lost, progress)
    finally:
        if owned:
            client.close()
    return [results[label] for label, _ in parts]


def _block_task(token: str, expected: tuple[str, bool], blob: bytes, part: Any) -> Any:
    """One block on a worker: check the worker once per call, then `task(shared, part)`."""
    get_worker = optional_module("distributed", "cluster", "a task on a worker").get_worker
    if token not in _CHECKED:
        refuse_mismatch(get_worker().address, worker_facts("", token), expected, None)
        _CHECKED.add(token)
    task, shared = pickle.loads(blob)
    return task(shared, part)


def _chunk_task(token, key, blob, expected, i, idx, values, size, attrs, folder) -> dict[str, Any]:
    """One chunk on a worker: check the worker once per call, unpickle the problem once, compute, publish."""
    get_worker = optional_module("distributed", "cluster", "a sweep's task on a worker").get_worker
    _listen_for_compiles()
    folder = Path(folder)
    worker = get_worker().address
    if token not in _CHECKED:  # a worker that joined after the client's check
        refuse_mismatch(worker, worker_facts(str(folder / f".difflab-marker-{token}"), token), expected, folder)
        _CHECKED.add(token)
    if key not in _PROBLEMS:
        _PROBLEMS[key] = pickle.loads(blob)
        while len(_PROBLEMS) > _KEEP:
            _PROBLEMS.pop(next(iter(_PROBLEMS)))
    model, protocol, ts, obs, ensemble_kwargs, derivatives = _PROBLEMS[key]
    before = _REPORT["compiles"]
    ds = run_chunk(model, protocol, ts, values, idx, size, obs, ensemble_kwargs, derivatives)
    ds = finish_chunk(ds, attrs, i)
    private = folder / f".difflab-{token[:12]}-{socket.gethostname()}-{os.getpid()}"
    _publish(ds, chunk_path(folder, i), private)
    done = {"chunk": i, "token": token, "compiles": _REPORT["compiles"] - before}
    _REPORT["chunks"].append(done)
    return {**done, "worker": worker}


def _publish(ds, path: Path, private: Path) -> None:
    """Write `ds` completely in `private`, then rename it to `path` (atomic on one file system).

    The private folder keeps writers on different hosts apart: the cleanup of a local atomic write
    judges temporaries by process id, which means nothing for another host's process.
    """
    tmp = write_netcdf(ds, private / path.name, overwrite=True)
    if path.exists():  # a second run of this chunk (its first worker was presumed dead): keep the first
        tmp.unlink()
    else:
        os.replace(tmp, path)


def _listen_for_compiles() -> None:
    """Count XLA compilations in this process (once per process)."""
    if _LISTENING:
        return

    def count(event: str, duration_secs: float, **kwargs: str | int) -> None:
        if event == _COMPILE_EVENT:
            _REPORT["compiles"] += 1

    jax.monitoring.register_event_duration_secs_listener(count)
    _LISTENING.append(True)


def worker_report() -> dict[str, Any]:
    """What this worker process did: XLA compilations so far, and per chunk those it caused.

    Run it on every worker with `client.run(worker_report)`: after the first chunk of a study, a
    worker's chunks should report `compiles == 0`.
    """
    return {"compiles": _REPORT["compiles"], "chunks": list(_REPORT["chunks"])}
