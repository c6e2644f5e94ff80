"""The tokenizer: identifiers whole and split, numbers kept, punctuation trimmed."""

from __future__ import annotations

import pytest

from mlwiki.core.search.tokenize import tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("RESOURCE_EXHAUSTED", ["resource_exhausted", "resource", "exhausted"]),
        (
            "ProcessGroupNCCL.cpp:1333",
            ["processgroupnccl.cpp:1333", "processgroupnccl", "process", "group", "nccl", "cpp", "1333"],
        ),
        (
            "torch.cuda.OutOfMemoryError:",
            ["torch.cuda.outofmemoryerror", "torch", "cuda", "outofmemoryerror", "out", "memory", "error"],
        ),
        ("Used 49.34G of 16.00G hbm.", ["used", "49.34g", "49", "34g", "34", "16.00g", "16", "00g", "00", "hbm"]),
        ("exit code 137", ["exit", "code", "137"]),
        ("'\"(Xid 79)\"'", ["xid", "79"]),
        ("kube-system/jobset-controller", ["kube-system/jobset-controller", "kube", "system", "jobset", "controller"]),
        ("Барьер тайм-аут", ["барьер", "тайм-аут", "тайм", "аут"]),
        ("超时 错误", ["超时", "错误"]),
        ("NCCL超时", ["nccl超时", "nccl", "超时"]),  # no space between scripts: each run is a token too
        ("CUDAError错误", ["cudaerror错误", "cudaerror", "cuda", "error", "错误"]),
        ("+ - ~ ^ * : \" '", []),
        ("a of the to", []),
    ],
)
def test_tokens(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected
