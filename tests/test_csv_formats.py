"""CSV files as spreadsheets write them: UTF-8 with a BOM, Windows-1252, semicolons and decimal commas."""

from __future__ import annotations

import pytest

from hexeval_engine import DataError, load_data
from hexeval_engine.data.csv_reader import read_csv_content

ROWS = [("café", 1.5, 1), ("crème brûlée", 2.25, 0), ("naïve", 3.0, 1), ("Zürich", 4.5, 0)] * 10


def _text(sep=",", decimal="."):
    lines = [sep.join(["dessert", "price", "target"])]
    lines += [sep.join([name, str(price).replace(".", decimal), str(t)]) for name, price, t in ROWS]
    return "\n".join(lines) + "\n"


def test_utf8_with_byte_order_mark_reads_the_first_column_name_cleanly(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + _text().encode("utf-8"))
    data = load_data(path, "target")
    assert data.feature_names == ["dessert", "price"]
    assert data.quality.encoding == "UTF-8 with byte-order mark" and not data.quality.notes


def test_windows_1252_file_loads_its_accented_labels_and_says_which_encoding_was_used(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_bytes(_text().encode("cp1252"))
    data = load_data(path, "target")
    labels = {data.coder.label("dessert", v) for v in data.X_all["dessert"]}
    assert labels == {"café", "crème brûlée", "naïve", "Zürich"}
    assert data.quality.encoding == "Windows-1252"
    assert any("read as Windows-1252" in note and "'excel.csv'" in note for note in data.quality.notes)


def test_bytes_undefined_in_windows_1252_fall_back_to_latin_1():
    content = read_csv_content(b"name,target\n\x81x,1\ny,0\n")
    assert content.encoding.startswith("Latin-1") and content.frame["name"].tolist() == ["\x81x", "y"]


def test_semicolon_file_with_decimal_commas_is_detected_and_noted(tmp_path):
    path = tmp_path / "semi.csv"
    path.write_text(_text(";", ","), encoding="utf-8")
    data = load_data(path, "target")
    assert data.numeric_features == ["price"] and data.X_all["price"].sort_values().iloc[0] == 1.5
    assert data.quality.delimiter == ";"
    assert any("semicolons" in n for n in data.quality.notes) and any("decimal comma" in n for n in data.quality.notes)


def test_tab_separated_file_is_read(tmp_path):
    path = tmp_path / "tabs.csv"
    path.write_text(_text("\t"), encoding="utf-8")
    assert load_data(path, "target").feature_names == ["dessert", "price"]


def test_ragged_semicolon_file_names_the_separator_and_the_line(tmp_path):
    path = tmp_path / "ragged.csv"
    path.write_text("a;b;target\n1;2;0\n3;4;1\n5;6;7;8\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_data(path, "target")
    message = str(err.value)
    assert "semicolons" in message and "line 4 has 4 fields, the header 3" in message and "C error" not in message
