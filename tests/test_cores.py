"""The cores a process may use: its affinity, capped by its cgroup's CPU quota."""

import os
import shutil
import subprocess
import sys

import pytest

from flipnet.base.cores import cgroup_quota, usable_cores


def cgroup(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_a_cgroup_quota_caps_the_cores_rounded_up(tmp_path):
    affinity = len(os.sched_getaffinity(0))
    assert cgroup_quota(cgroup(tmp_path / "none", {})) is None
    assert usable_cores(tmp_path / "none") == affinity
    assert cgroup_quota(cgroup(tmp_path / "v2-max", {"cpu.max": "max 100000\n"})) is None
    assert cgroup_quota(cgroup(tmp_path / "v2", {"cpu.max": "150000 100000\n"})) == 1.5
    assert usable_cores(tmp_path / "v2") == min(affinity, 2)
    assert usable_cores(cgroup(tmp_path / "v2-small", {"cpu.max": "20000 100000\n"})) == 1  # a fifth: one
    v1 = cgroup(tmp_path / "v1", {"cpu/cpu.cfs_quota_us": "100000\n", "cpu/cpu.cfs_period_us": "100000\n"})
    assert cgroup_quota(v1) == 1.0 and usable_cores(v1) == 1
    assert cgroup_quota(cgroup(tmp_path / "v1-none", {"cpu/cpu.cfs_quota_us": "-1\n",
                                                      "cpu/cpu.cfs_period_us": "100000\n"})) is None
    assert cgroup_quota(cgroup(tmp_path / "bad", {"cpu.max": "lots 0\n"})) is None


@pytest.mark.skipif(shutil.which("taskset") is None, reason="needs taskset (util-linux)")
def test_the_affinity_is_what_a_process_is_given_not_the_machine():
    code = "from flipnet.base.cores import usable_cores; print(usable_cores())"
    pinned = subprocess.run(["taskset", "-c", "0", sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert pinned.stdout.strip() == "1"
