"""jsonio: the one JSON loader (clear errors) and the one atomic writer."""

from __future__ import annotations

import gc
import os
import stat
from pathlib import Path
from typing import Any

import pytest

from mcpaql_conformance.errors import ConfigError
from mcpaql_conformance.files.jsonio import gc_paused, load_json_file, parse_json, read_bytes, write_atomic

# parse_json


def test_parse_json_returns_the_document() -> None:
    assert parse_json(b'{"a": [1, 2.5, true, null]}', "b.json") == {"a": [1, 2.5, True, None]}


def test_parse_json_accepts_a_utf8_bom() -> None:
    assert parse_json(b'\xef\xbb\xbf{"a": 1}', "b.json") == {"a": 1}


def test_parse_json_accepts_non_object_documents() -> None:
    # Whether a bundle must be an object is the bundle loader's decision.
    assert parse_json(b"[1]", "b.json") == [1]


def test_parse_json_error_names_source_line_and_column() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_json(b'{\n  "a": 1,\n  "b" 2\n}', "bundle.json")
    message = str(caught.value)
    assert message.startswith("bundle.json:3:")
    assert "invalid JSON" in message


def test_parse_json_error_on_first_line_reports_line_one() -> None:
    with pytest.raises(ConfigError, match=r"^b\.json:1:5: invalid JSON: unexpected end of data$"):
        parse_json(b"[1,2", "b.json")


def test_parse_json_error_names_the_reason_and_position() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_json(b'{"a": 1,}', "b.json")
    assert str(caught.value) == "b.json:1:8: invalid JSON: trailing comma is not allowed"


def test_parse_json_reports_a_number_out_of_range_as_such() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_json(b'{"a": 1e999,\n "b": 2}', "b.json")
    message = str(caught.value)
    assert message == "b.json:1:7: invalid JSON: number is infinity when parsed as double"


def test_parse_json_rejects_nan() -> None:
    with pytest.raises(ConfigError, match=r"^b\.json:1:7: invalid JSON: unexpected character, expected a JSON value$"):
        parse_json(b'{"a": NaN}', "b.json")


def test_parse_json_rejects_trailing_data() -> None:
    with pytest.raises(ConfigError, match=r"^b\.json:1:4: invalid JSON: unexpected content after document$"):
        parse_json(b"{} {}", "b.json")


def test_parse_json_reports_excessive_nesting() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_json(b"[" * 100_000 + b"]" * 100_000, "b.json")
    assert str(caught.value) == "b.json: invalid JSON: nested too deeply"


def test_parse_json_keeps_integers_beyond_64_bits() -> None:
    assert parse_json(b'{"n": 123456789012345678901234567890}', "b.json") == {"n": 123456789012345678901234567890}


def test_parse_json_rejects_an_empty_file() -> None:
    with pytest.raises(ConfigError, match=r"^b\.json: file is empty, expected JSON$"):
        parse_json(b"", "b.json")


def test_parse_json_rejects_a_whitespace_only_file_as_empty() -> None:
    with pytest.raises(ConfigError, match="file is empty"):
        parse_json(b" \n\t\r\n", "b.json")


def test_parse_json_rejects_a_bom_only_file_as_empty() -> None:
    with pytest.raises(ConfigError, match="file is empty"):
        parse_json(b"\xef\xbb\xbf", "b.json")


def test_parse_json_reports_invalid_utf8_with_line_column_and_offset() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_json(b'{\n"a":\n "\xc3"}', "b.json")
    assert str(caught.value) == "b.json:3:3: not valid UTF-8 (byte offset 9)"


def test_parse_json_reports_latin1_bytes_as_invalid_utf8() -> None:
    with pytest.raises(ConfigError, match=r"^b\.json:1:8: not valid UTF-8"):
        parse_json('{"a": "\u00e9"}'.encode("latin-1"), "b.json")


def test_load_json_file_error_does_not_echo_terminal_escapes_from_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "\x1b[31mevil\nname.json"
    path.write_bytes(b"{")
    with pytest.raises(ConfigError) as caught:
        load_json_file(path, "bundle")
    message = str(caught.value)
    assert "\x1b" not in message
    assert "\n" not in message
    assert message.endswith("evil name.json:1:2: invalid JSON: unexpected end of data")


# read_bytes / load_json_file


def test_read_bytes_returns_the_file_content(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(b"{}")
    assert read_bytes(path, "bundle") == b"{}"


def test_read_bytes_missing_file_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(ConfigError) as caught:
        read_bytes(path, "bundle")
    assert str(caught.value) == f"bundle not found: {path}"


def test_read_bytes_directory_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        read_bytes(tmp_path, "bundle")
    assert str(caught.value) == f"{tmp_path}: is a directory, expected a bundle file"


def test_read_bytes_permission_denied_is_a_config_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(*args: Any) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", denied)
    path = tmp_path / "secret.json"
    with pytest.raises(ConfigError) as caught:
        read_bytes(path, "report")
    assert str(caught.value) == f"{path}: cannot read report: permission denied"


def test_read_bytes_other_os_errors_are_config_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any) -> int:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "open", broken)
    path = tmp_path / "b.json"
    with pytest.raises(ConfigError) as caught:
        read_bytes(path, "bundle")
    assert str(caught.value) == f"{path}: cannot read bundle: Input/output error"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_at_once_instead_of_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "bundle.json"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError) as caught:
        read_bytes(fifo, "bundle")
    assert str(caught.value) == f"{fifo}: is a FIFO, not a bundle file"


def test_a_device_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="/dev/null: is a character device, not a plan file"):
        read_bytes(Path("/dev/null"), "plan")


@pytest.mark.parametrize("data", ["{}".encode("utf-16"), "{}".encode("utf-16-le"), "{}".encode("utf-16-be")])
def test_utf16_files_are_named_as_such(data: bytes) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_json(data, "b.json")
    assert str(caught.value) == "b.json: UTF-16 is not supported; save the file as UTF-8"


def test_output_goes_through_a_symlink_and_keeps_the_link_and_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old")
    target.chmod(0o600)
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_output_into_a_device_writes_through_and_reports_a_full_disk() -> None:
    write_atomic(Path("/dev/null"), "text")  # not replaced by a regular file
    assert Path("/dev/null").is_char_device()
    if Path("/dev/full").exists():
        with pytest.raises(ConfigError, match="/dev/full: cannot write output: No space left on device"):
            write_atomic(Path("/dev/full"), "text")


def test_load_json_file_parses_the_file(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(b'{"implementation": "x"}')
    assert load_json_file(path, "bundle") == {"implementation": "x"}


def test_load_json_file_errors_name_the_path(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    path.write_bytes(b"{\n  oops\n}")
    with pytest.raises(ConfigError) as caught:
        load_json_file(path, "bundle")
    assert str(caught.value).startswith(f"{path}:2:")


# gc_paused


def test_gc_paused_disables_collection_inside_and_restores_it() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_gc_paused_without_freeze_leaves_new_objects_collectable() -> None:
    frozen = gc.get_freeze_count()
    with gc_paused(freeze=False):
        made = [[] for _ in range(100)]
    # nothing was frozen (what an earlier test froze may be freed meanwhile: the count only falls)
    assert gc.get_freeze_count() <= frozen
    assert gc.is_tracked(made[0])


# write_atomic


def test_write_atomic_writes_a_new_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_atomic(target, '{"a": "\u00e9"}\n')
    assert target.read_text(encoding="utf-8") == '{"a": "\u00e9"}\n'


def test_write_atomic_keeps_newlines_unchanged(tmp_path: Path) -> None:
    target = tmp_path / "report.md"
    write_atomic(target, "a\nb\r\n")
    assert target.read_bytes() == b"a\nb\r\n"


def test_write_atomic_replaces_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old content that is longer than the new one")
    write_atomic(target, "new")
    assert target.read_text() == "new"


def test_write_atomic_leaves_no_temporary_file(tmp_path: Path) -> None:
    write_atomic(tmp_path / "report.json", "x")
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_write_atomic_makes_the_file_world_readable(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_atomic(target, "x")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_write_atomic_failing_fsync_leaves_no_temp_file_and_keeps_the_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")

    def no_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_fsync)
    with pytest.raises(ConfigError) as caught:
        write_atomic(target, "new")
    assert str(caught.value) == f"{target}: cannot write output: No space left on device"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]
    assert target.read_text() == "old"


def test_write_atomic_failing_replace_leaves_no_temp_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "report.json"

    def no_replace(src: str, dst: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", no_replace)
    with pytest.raises(ConfigError, match="cannot write output: Permission denied"):
        write_atomic(target, "new")
    assert list(tmp_path.iterdir()) == []


def test_write_atomic_interrupted_write_leaves_no_temp_file_and_re_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "report.json", "new")
    assert list(tmp_path.iterdir()) == []


def test_write_atomic_creates_a_missing_folder(tmp_path: Path) -> None:
    target = tmp_path / "new" / "folder" / "report.json"
    write_atomic(target, "x")
    assert target.read_text() == "x"


def test_write_atomic_names_a_folder_it_cannot_create(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    target = tmp_path / "file" / "sub" / "report.json"
    with pytest.raises(ConfigError) as caught:
        write_atomic(target, "x")
    assert str(caught.value).startswith(f"{target}: cannot write output: cannot create folder {tmp_path}/file/sub: ")


def test_write_atomic_refuses_a_directory_target(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        write_atomic(tmp_path, "x")
    assert str(caught.value) == f"{tmp_path}: is a directory, expected an output file"


def test_write_atomic_temp_file_creation_failure_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    def no_temp(**kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", no_temp)
    with pytest.raises(ConfigError, match="cannot write output: Permission denied"):
        write_atomic(tmp_path / "report.json", "x")


def test_write_atomic_relative_path_writes_in_the_current_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_atomic(Path("out.md"), "# ok\n")
    assert (tmp_path / "out.md").read_text() == "# ok\n"


# refuse_overwriting_inputs: no output replaces an input


@pytest.fixture
def fresh_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcpaql_conformance.files import jsonio

    monkeypatch.setattr(jsonio, "_INPUTS", {})


def _bundle(tmp_path: Path) -> Path:
    path = tmp_path / "b.json"
    path.write_text('{"a": 1}\n', encoding="utf-8")
    return path


@pytest.mark.usefixtures("fresh_inputs")
@pytest.mark.parametrize("spelling", ["same", "relative", "symlink", "hardlink", "linked-folder"])
def test_an_output_that_is_an_input_is_refused_however_it_is_spelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    from mcpaql_conformance.files.jsonio import refuse_overwriting_inputs

    bundle = _bundle(tmp_path)
    monkeypatch.chdir(tmp_path)
    output = {
        "same": bundle,
        "relative": Path("./sub/../b.json"),
        "symlink": tmp_path / "link.json",
        "hardlink": tmp_path / "hard.json",
        "linked-folder": tmp_path / "alias" / "b.json",
    }[spelling]
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.json").symlink_to(bundle)
    os.link(bundle, tmp_path / "hard.json")
    (tmp_path / "alias").symlink_to(tmp_path)
    with pytest.raises(ConfigError) as caught:
        refuse_overwriting_inputs([("-o", output)], [("", bundle)])
    assert str(caught.value) == f"-o {output} would overwrite the input {bundle}: choose another path"
    assert bundle.read_text(encoding="utf-8") == '{"a": 1}\n'


@pytest.mark.usefixtures("fresh_inputs")
def test_an_input_named_through_a_link_is_the_file_it_names(tmp_path: Path) -> None:
    from mcpaql_conformance.files.jsonio import refuse_overwriting_inputs

    bundle = _bundle(tmp_path)
    (tmp_path / "link.json").symlink_to(bundle)
    with pytest.raises(ConfigError, match=r"would overwrite the input .*link\.json \(--plan\)"):
        refuse_overwriting_inputs([("--bundle", bundle)], [("--plan", tmp_path / "link.json")])


@pytest.mark.usefixtures("fresh_inputs")
def test_an_output_inside_an_input_folder_is_refused_only_when_it_is_read(tmp_path: Path) -> None:
    from mcpaql_conformance.files.jsonio import refuse_overwriting_inputs

    (tmp_path / "deep").mkdir()
    record = tmp_path / "deep" / "r-1.json"
    record.write_text("{}", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"r-1\.json"):
        refuse_overwriting_inputs([("-o", record)], [("", tmp_path)])
    refuse_overwriting_inputs([("-o", tmp_path / "new.json"), ("--write-plan", tmp_path / "notes.txt")], [])


@pytest.mark.usefixtures("fresh_inputs")
def test_different_files_stdout_devices_and_missing_inputs_pass(tmp_path: Path) -> None:
    from mcpaql_conformance.files.jsonio import refuse_overwriting_inputs

    bundle = _bundle(tmp_path)
    refuse_overwriting_inputs(
        [("-o", tmp_path / "report.json"), ("-o", Path("-")), ("-o", Path(os.devnull)), ("-o", None)],
        [("", bundle), ("--baseline", None), ("--plan", tmp_path / "missing.json"), ("", Path(os.devnull))],
    )


@pytest.mark.usefixtures("fresh_inputs")
@pytest.mark.parametrize("exists", [False, True])
def test_two_outputs_that_are_one_file_are_refused(tmp_path: Path, exists: bool) -> None:
    from mcpaql_conformance.files.jsonio import refuse_overwriting_inputs

    if exists:
        (tmp_path / "x.json").write_text("{}", encoding="utf-8")
    (tmp_path / "alias").symlink_to(tmp_path)
    first, second = tmp_path / "x.json", tmp_path / "alias" / "x.json"
    with pytest.raises(ConfigError) as caught:
        refuse_overwriting_inputs([("-o", first), ("--bundle", second)], [])
    assert str(caught.value) == f"-o {first} and --bundle {second} are the same file: give each output its own path"


@pytest.mark.usefixtures("fresh_inputs")
def test_write_atomic_never_replaces_a_registered_input(tmp_path: Path) -> None:
    from mcpaql_conformance.files.jsonio import refuse_overwriting_inputs

    bundle = _bundle(tmp_path)
    os.link(bundle, tmp_path / "hard.json")
    refuse_overwriting_inputs([], [("", bundle)])
    with pytest.raises(ConfigError, match="would overwrite the input"):
        write_atomic(tmp_path / "hard.json", "[]\n")
    assert bundle.read_text(encoding="utf-8") == '{"a": 1}\n'
    write_atomic(tmp_path / "other.json", "[]\n")


# dumps: the one JSON writer


def test_dumps_writes_invisible_characters_as_json_escapes_with_the_same_value() -> None:
    import orjson

    from mcpaql_conformance.files.jsonio import dumps

    value = {"name\u3164": "a\u00adb\u202ec\x9bd\u2061e\U000e0041f\ufe0f\x7f\u200b"}
    text = dumps(value)
    assert text.isascii()
    assert "\\u3164" in text and "\\udb40\\udc41" in text and "\\u009b" in text
    assert orjson.loads(text) == value
    assert dumps([1, "caf\u00e9"], indent=False) == '[1,"caf\u00e9"]\n'


def test_dumps_writes_lone_surrogates_as_replacement_characters() -> None:
    from mcpaql_conformance.files.jsonio import dumps

    assert dumps({"file": "bad\udcff.json"}, indent=False) == '{"file":"bad\ufffd.json"}\n'
