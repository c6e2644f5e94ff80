"""Triage of whole logs: shapes, first failure vs echoes, workers, every kind of bad input."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mlwiki.core.triage import InputError, Triage, list_inputs, rank, shape_tokens
from noise import bury
from wikifix import REPO

HBM = "RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used 21.95G of 15.48G hbm. Exceeded hbm capacity by 6.47G."
DOCS: list[dict[str, Any]] = [
    {"ref": "hbm-oom", "type": "symptom", "title": "HBM OOM", "url": "s/hbm/", "signatures": [HBM]},
    {
        "ref": "peer-died",
        "type": "symptom",
        "title": "Peer task died",
        "url": "s/peer/",
        "signatures": ["Terminating process because the JAX distributed service detected fatal errors"],
        "echo_of": ["hbm-oom"],
    },
    {"ref": "generic", "type": "symptom", "title": "Too generic", "url": "s/g/", "signatures": ["error 42"]},
]


def run(tmp_path: Path, files: dict[str, bytes], docs: list[dict[str, Any]] = DOCS) -> Any:
    for name, data in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    problems: list[str] = []
    tri = Triage(docs)
    report = tri.run(list_inputs([str(tmp_path / n) for n in files], problems), problems=problems, workers=1)
    return tri, report


def test_numbers_sizes_and_hosts_are_variable_on_both_sides(tmp_path: Path) -> None:
    line = b"E1130 10:00:01.000001  4242 pjit.py:99] RESOURCE_EXHAUSTED: Ran out of memory in memory space hbm. Used 30.1G of 15.75G hbm. Exceeded hbm capacity by 14.35G.\n"
    _, report = run(tmp_path, {"w0.log": b"step 1\n" + line})
    assert report.hits["hbm-oom"].first["line"] == 2
    assert shape_tokens("Used 21.95G of 15.48G hbm") == shape_tokens("Used 3G of 16.00G hbm")


def test_constant_words_must_match_in_order(tmp_path: Path) -> None:
    _, report = run(tmp_path, {"w0.log": b"hbm space memory in out Ran RESOURCE_EXHAUSTED Used 1G of 2G\n"})
    assert "hbm-oom" not in report.hits


def test_a_signature_too_generic_to_match_alone_is_not_a_shape() -> None:
    assert [s.page for s in Triage(DOCS).shapes] == ["hbm-oom", "peer-died"]


def test_root_cause_ranks_above_its_echo_even_when_the_echo_is_first(tmp_path: Path) -> None:
    echo = b"I1130 10:00:00.000000 1 x.cc:1] Terminating process because the JAX distributed service detected fatal errors\n"
    root = ("E1130 10:00:05.000000 1 y.py:2] " + HBM + "\n").encode()
    tri, report = run(tmp_path, {"worker-1.log": echo * 3, "worker-0.log": root})
    ranked = rank(report, tri)
    assert [h.page for h in ranked] == ["hbm-oom", "peer-died"]
    assert report.hits["peer-died"].count == 3
    assert report.hits["hbm-oom"].workers == {"worker-0"}


def test_first_occurrence_is_by_timestamp_across_files(tmp_path: Path) -> None:
    late = ("2024-06-26T06:24:50 " + HBM + "\n").encode()
    early = ("2024-06-26T06:24:44 " + HBM + "\n").encode()
    _, report = run(tmp_path, {"a.log": late, "b.log": early})
    first = report.hits["hbm-oom"].first
    assert first["file"].endswith("b.log") and first["timestamp"].startswith("2024-06-26 06:24:44")
    assert report.hits["hbm-oom"].count == 2


def test_unmatched_error_lines_are_kept_with_counts(tmp_path: Path) -> None:
    log = b"step 1\nValueError: weird thing 1\nValueError: weird thing 2\nTraceback (most recent call last):\n"
    _, report = run(tmp_path, {"w.log": log})
    assert [(u.line, u.count) for u in report.unmatched][:1] == [("ValueError: weird thing 1", 2)]


def test_driver_and_generic_lines_are_candidates_not_shapes(tmp_path: Path) -> None:
    """A kernel driver line with no error word is still examined; a shape of a few words that
    many pages use is weak (it ranks below a specific guess)."""
    log = b"step 1\n[188497.595099] NVRM: No NVIDIA graphics adapter probed!\nstep 2\n"
    _, report = run(tmp_path, {"w.log": log})
    assert [u.line for u in report.unmatched] == ["[188497.595099] NVRM: No NVIDIA graphics adapter probed!"]
    docs = [{"ref": f"p{i}", "type": "symptom", "title": "t", "url": "u", "signatures": [f"connect [10.0.0.{i}]:80: Connection refused"]}
            for i in range(3)] + [{"ref": "gloo", "type": "symptom", "title": "g", "url": "u",
                                   "signatures": ["Gloo connectFullMesh failed with no error"]}]  # fmt: skip
    tri = Triage(docs)
    weak = {s.page: s.weak for s in tri.shapes}
    assert weak == {"p0": True, "p1": True, "p2": True, "gloo": False}  # one sequence, three pages
    docs = [{"ref": f"q{w}", "type": "symptom", "title": "t", "url": "u", "signatures": [f"connection refused by peer {w}"]}
            for w in ("alpha", "beta", "gamma")] + [{"ref": "short", "type": "symptom", "title": "s", "url": "u",
                                                     "signatures": ["Connection refused peer"]}]  # fmt: skip
    weak = {s.page: s.weak for s in Triage(docs).shapes}
    assert weak == {"qalpha": False, "qbeta": False, "qgamma": False, "short": True}  # few words many pages use


# --- bad input: a result or a clear message, never a crash, nothing lost --------------------


def test_invalid_utf8_crlf_ansi_and_nul(tmp_path: Path) -> None:
    line = b"\x1b[31mE1130\x1b[0m \xff\xfe " + HBM.encode() + b"\r\n"
    _, report = run(tmp_path, {"w.log": b"ok\r\n\x00\x00partial\r\n" + line})
    assert report.hits["hbm-oom"].first["line"] == 3
    assert "\r" not in report.hits["hbm-oom"].first["text"]


def test_binary_file_is_skipped_with_a_message(tmp_path: Path) -> None:
    import random

    _, report = run(tmp_path, {"core.bin": random.Random(1).randbytes(200_000)})
    assert report.problems == [f"{tmp_path / 'core.bin'}: looks binary; skipped"]


def test_empty_file(tmp_path: Path) -> None:
    _, report = run(tmp_path, {"empty.log": b""})
    assert report.problems == [f"{tmp_path / 'empty.log'}: empty"]


def test_a_20_mb_single_line_is_examined_in_windows(tmp_path: Path) -> None:
    blob = b"x" * 12_000_000 + b" " + HBM.encode() + b" " + b"y" * 8_000_000
    _, report = run(tmp_path, {"one-line.log": blob})
    assert report.hits["hbm-oom"].count == 1
    assert report.bytes_read == len(blob)


def test_truncated_gzip_reads_what_is_there(tmp_path: Path) -> None:
    data = gzip.compress(("step\n" * 1000 + HBM + "\n" + "step\n" * 200000).encode())
    _, report = run(tmp_path, {"w.log.gz": data[: len(data) // 2]})
    assert report.hits["hbm-oom"].count == 1
    assert any("truncated .gz" in p for p in report.problems), report.problems


def test_directory_of_1000_files_and_a_symlink_loop(tmp_path: Path) -> None:
    d = tmp_path / "logs"
    d.mkdir()
    for i in range(1000):
        (d / f"worker-{i:04d}.log").write_text("step ok\n" + (HBM + "\n" if i == 617 else ""), encoding="utf-8")
    (d / "loop").symlink_to(d, target_is_directory=True)
    (d / "self-link.log").symlink_to(d / "self-link.log")
    problems: list[str] = []
    sources = list_inputs([str(d)], problems)
    assert len(sources) == 1000
    tri = Triage(DOCS)
    report = tri.run(sources, problems=problems, workers=1)
    assert report.hits["hbm-oom"].first["file"].endswith("worker-0617.log")
    assert len(report.files) == 1000


def test_missing_path_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file or directory"):
        list_inputs([str(tmp_path / "nope.log")], [])


def test_parallel_and_serial_scans_agree(tmp_path: Path) -> None:
    log = "\n".join(bury(HBM, 9_000_000, 0.7, seed=3)).encode() + b"\n"
    (tmp_path / "w.log").write_bytes(log)
    out = []
    for workers in (1, 2):
        tri = Triage(DOCS)
        report = tri.run(list_inputs([str(tmp_path / "w.log")], []), workers=workers)
        out.append((report.hits["hbm-oom"].first, report.lines_read, report.bytes_read))
    assert out[0] == out[1]
    assert out[0][1] == log.count(b"\n")


# --- the CLI ------------------------------------------------------------------------------


def cli(args: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, str(REPO / "scripts" / "query_interface.py"), *args],
        input=stdin,
        capture_output=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO / "plugins")},
    )


def test_piped_log_is_triaged_and_json_has_evidence() -> None:
    err = "[rank3]:[E1206 18:44:12.715298746 ProcessGroupNCCL.cpp:607] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=17, OpType=ALLREDUCE, NumelIn=5, NumelOut=5, Timeout(ms)=600000) ran for 600099 milliseconds before timing out."
    log = "\n".join(bury(err, 300_000, 0.8, seed=1)).encode()
    proc = cli(["-", "--json"], log)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    top = out["results"][0]
    assert top["id"] == "nccl-watchdog-timeout" and top["match"] == "shape"
    assert top["first_seen"]["text"] == err and top["workers"] == ["rank 3"]
    assert top["next"].endswith("--workflow wf-nccl-timeout '{}' --dry-run")
    assert out["read"]["bytes_read"] == len(log)


def test_text_output_and_nothing_found(tmp_path: Path) -> None:
    (tmp_path / "ok.log").write_text("step 1\nstep 2\n", encoding="utf-8")
    proc = cli(["--log", str(tmp_path)])
    assert proc.returncode == 1
    assert b"no signature matched and no error-looking line was found" in proc.stderr
    missing = cli(["--log", str(tmp_path / "nope")])
    assert missing.returncode == 2 and b"no such file or directory" in missing.stderr
    (tmp_path / "ok.log").write_text("step 1\nstep 2\nValueError: the frobnicator exploded\nstep 3\nstep 4\n", encoding="utf-8")
    guessed = cli(["--log", str(tmp_path / "ok.log"), "-k", "2"])
    assert guessed.returncode == 0
    assert b"-- best guess by the search ranking" in guessed.stdout
    assert b"why: no signature shape matched this line; best guess by the search ranking" in guessed.stdout


def test_one_line_query_keeps_search_behaviour() -> None:
    proc = cli(["ProcessGroupNCCL watchdog timeout", "--json"])
    assert proc.returncode == 0
    assert "results" in json.loads(proc.stdout) and "read" not in json.loads(proc.stdout)




CODES: list[dict[str, Any]] = [
    {"ref": f"code-{n}", "type": "symptom", "title": f"Code {n}", "url": f"s/{n}/",
     "signatures": [f"RuntimeError: cuda runtime error ({n}) : {what} at /pytorch/aten/src/THC/THCGeneral.cpp:50"]}
    for n, what in ((35, "driver version is insufficient"), (30, "unknown error"), (802, "system not yet initialized"))
]  # fmt: skip


def test_a_truncated_line_keeps_its_error_code(tmp_path: Path) -> None:
    """A line cut before the message ("RuntimeError :cuda runtime error (30)") matches every
    signature it is a part of; the one whose numbers are the line's comes first."""
    tri, report = run(tmp_path, {"w0.log": b"step 1\nRuntimeError :cuda runtime error (30)\nstep 2\n"}, CODES)
    assert set(report.hits) == {"code-35", "code-30", "code-802"}
    assert next(h.page for h in rank(report, tri)) == "code-30"


def test_each_candidate_line_gives_its_best_guess_before_any_gives_a_second() -> None:
    """Two unmatched error lines of one message: the top guesses include the best page of each
    line, not only the three pages of the line with the higher scores."""
    from mlwiki.cli.query import load_payload
    from mlwiki.core.search.rank import load_index
    from mlwiki.core.triage import guesses

    payload = load_payload(REPO / "wiki")
    tri = Triage(payload["docs"])
    index = load_index(payload["index"])
    a = "Additional GRPC error information from remote target unknown_target_for_coordination_leader while calling /tensorflow.CoordinationService/Barrier:"
    b = 'grpc_message":"Barrier timed out. Barrier_id: sync_devices. Timed out task names: /job:jax_worker/replica:0/task:1'
    data = ("\n".join([f"step {i} loss 1.0" for i in range(50)] + [a, b] + [f"step {i} loss 1.0" for i in range(50)]) + "\n").encode()
    report = tri.run([("w.log", lambda: __import__("io").BytesIO(data))], workers=1)
    out = guesses(report, tri, index)
    by_line: dict[str, list[str]] = {}
    for hit, u in out:
        by_line.setdefault(u.line, []).append(hit.ref)
    firsts = {refs[0] for refs in by_line.values()}
    top = [hit.ref for hit, _ in out[: len(by_line)]]
    assert firsts <= set(top)


FRAME_DOCS: list[dict[str, Any]] = [
    {"ref": "rdzv", "type": "symptom", "title": "Rendezvous failed", "url": "s/r/", "signatures": ["RendezvousClosedError"]},
    {"ref": "other", "type": "symptom", "title": "Other", "url": "s/o/", "signatures": ["Something unrelated failed here"]},
]


def test_a_traceback_frame_gives_its_next_candidate_line_context(tmp_path: Path) -> None:
    """A frame line ("File ..., line N, in f") is never a candidate itself, so a 30-frame traceback
    does not crowd out its exception line; the candidate line right after a frame is searched with
    that frame (its file and function), and a candidate after anything else is searched alone."""
    frames = "".join(f'  File "/src/pkg/mod{i}.py", line {i}, in call_{i}\n    helper_{i}()\n' for i in range(30))
    log = (
        "step 1\nTraceback (most recent call last):\n" + frames
        + '  File "/usr/lib/python3/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", line 1024, in next_rendezvous\n'
        + "    raise RendezvousTimeoutError()\n"
        + "ValueError: bad value\n"
        + '  profile "x", line 3, in f\n    raise OtherError()\nstep 2\n'
    ).encode()  # fmt: skip
    _, report = run(tmp_path, {"w.log": log}, FRAME_DOCS)
    by_line = {u.line: u for u in report.candidates}
    assert not any(line.startswith("File ") for line in by_line)  # frames are not candidates
    assert "ValueError: bad value" in by_line and by_line["ValueError: bad value"].context == ""
    code = by_line["raise RendezvousTimeoutError()"]
    assert code.context.startswith('File "/usr/lib/python3/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py"')
    assert code.query == code.context + "\n" + code.line
    assert by_line["raise OtherError()"].context == ""  # "file \"" inside a word starts no frame


def test_a_frame_at_the_end_of_one_file_is_not_context_for_the_next(tmp_path: Path) -> None:
    files = {
        "a.log": b'step\n  File "/src/a.py", line 3, in f\n',
        "b.log": b"    raise RendezvousTimeoutError()\n",
        "c.log": b'  File "/src/a.py", line 3, in f\n\n    raise RendezvousTimeoutError(again)\n',
    }
    _, report = run(tmp_path, files, FRAME_DOCS)
    assert {u.line: u.context for u in report.candidates} == {
        "raise RendezvousTimeoutError()": "",
        "raise RendezvousTimeoutError(again)": "",
    }


def test_frames_route_a_traceback_cut_before_its_exception_line() -> None:
    """Two frames of torch's elastic rendezvous buried in training noise, with no exception line
    after them (the log was cut): the guesses name the rendezvous page, as the same two lines
    pasted alone into search do."""
    from mlwiki.cli.query import load_payload
    from mlwiki.core.search import search
    from mlwiki.core.search.rank import load_index
    from mlwiki.core.triage import guesses

    payload = load_payload(REPO / "wiki")
    tri = Triage(payload["docs"])
    index = load_index(payload["index"])
    err = (
        '  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", '
        "line 1121, in next_rendezvous\n    self._op_executor.run(join_op, deadline)"
    )
    alone = [h.ref for h in search(index, payload["docs"], err, k=3)]
    assert "torchrun-rendezvous-failed" in alone
    data = ("\n".join(bury(err, 200_000, 0.6, seed=3)) + "\n").encode()
    report = tri.run([("w.log", lambda: __import__("io").BytesIO(data))], workers=1)
    assert "torchrun-rendezvous-failed" in [hit.ref for hit, _ in guesses(report, tri, index)[:3]]


def test_a_qualified_exception_name_matches_its_bare_class_and_back(tmp_path: Path) -> None:
    """Tracebacks print "jaxlib.xla_extension.XlaRuntimeError: ..."; loggers and re-raised
    messages often only "XlaRuntimeError: ...". Either form of the line matches either form of
    the signature; a dotted name that is not an exception class stays one word."""
    assert shape_tokens("torch.cuda.OutOfMemoryError: CUDA out of memory")[:1] == ["outofmemoryerror"]
    assert shape_tokens("see ProcessGroupNCCL.cpp and torch.cuda.synchronize") == ["see", "processgroupnccl.cpp", "and", "torch.cuda.synchronize"]  # fmt: skip
    docs = [{"ref": "q", "type": "symptom", "title": "t", "url": "u",
             "signatures": ["jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 1.00GiB"]},
            {"ref": "b", "type": "symptom", "title": "t", "url": "u",
             "signatures": ["DistBackendError: NCCL communicator was aborted on rank 3"]}]  # fmt: skip
    log = (b"step 1\nXlaRuntimeError: RESOURCE_EXHAUSTED: Failed to allocate request for 6.27GiB\n"
           b"torch.distributed.DistBackendError: NCCL communicator was aborted on rank 0\n")  # fmt: skip
    _, report = run(tmp_path, {"w.log": log}, docs)
    assert set(report.hits) == {"q", "b"}
