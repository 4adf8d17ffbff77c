"""The vendored task files are checked against their published sha256 when they load."""

from __future__ import annotations

import hashlib
import shutil

import pytest

from sopbench_tools.dataset import EXPECTED_SHA256, TASK_DIR, TaskDataError, load_task


@pytest.mark.parametrize("name", sorted(EXPECTED_SHA256))
def test_one_changed_byte_stops_the_load_naming_the_file_and_both_hashes(name, tmp_path):
    copy = tmp_path / "task"
    shutil.copytree(TASK_DIR, copy)
    data = bytearray((copy / name).read_bytes())
    data[len(data) // 2] ^= 0x01
    (copy / name).write_bytes(bytes(data))
    with pytest.raises(TaskDataError) as info:
        load_task(copy)
    message = str(info.value)
    assert str(copy / name) in message
    assert EXPECTED_SHA256[name] in message
    assert hashlib.sha256(bytes(data)).hexdigest() in message


def test_a_missing_file_stops_the_load_naming_it(tmp_path):
    copy = tmp_path / "task"
    shutil.copytree(TASK_DIR, copy)
    (copy / "sop.txt").unlink()
    with pytest.raises(TaskDataError, match="missing: .*sop.txt"):
        load_task(copy)


def test_the_unchanged_copy_loads():
    task = load_task()
    assert len(task.rows) == 200 and len(task.gold) == 200
