"""Bounds on a model file *before* it is loaded: what it expands to, how many parts it has, what it declares.

A 1.56 MB skops file expanded to 3.39 GB while loading (issue 36): a zip holds members compressed a
thousand to one, and array headers, tree sizes and tensor shapes are declared in a few bytes. Every safe
format is therefore read once for what it *declares* and refused, with the limit named, before a library
allocates anything for it:

* **skops** (a zip archive): at most :data:`MAX_MEMBERS` members, no member compressed more than
  :data:`MAX_RATIO` to one, each ``.npy`` array's declared shape x item size equal to the bytes it holds,
  and the estimated memory of the load (arrays + other members + :data:`JSON_FACTOR` x its ``schema.json``)
  within the ceiling. A Booster stored inside (``.bin``/``.ubj``/``.json`` member) gets the XGBoost checks.
* **XGBoost** ``.json``/``.ubj``: every tree's declared ``num_nodes`` equals the arrays it holds, the tree
  count equals the trees present, class, feature and target counts are bounded, every split names an
  existing feature, and every declared length fits in the bytes that follow it (UBJSON). XGBoost itself
  resizes its buffers to the declared sizes before checking them.
* **ONNX**: every stored tensor's declared shape x item size matches its data, and no tensor the graph
  computes from constants (``ConstantOfShape``, ``Expand``, ``Tile``, found by ONNX shape inference with
  data propagation; onnxruntime folds them while loading) exceeds the ceiling.

The ceiling is :func:`memory_ceiling` (1 GiB unless the operator sets ``HEXEVAL_MODEL_MEMORY_MB``). It bounds
declared sizes by checked integer arithmetic (Python integers do not overflow); it is not an operating-system
limit on the process, so a library that amplifies well-formed input in ways not declared here is not bounded.
"""

from __future__ import annotations

import io
import json
import logging
import math
import os
import zipfile
from pathlib import Path, PurePosixPath

import numpy as np

from ..errors import ModelError

log = logging.getLogger(__name__)

MEMORY_ENV = "HEXEVAL_MODEL_MEMORY_MB"
DEFAULT_MEMORY_MB = 1024
MAX_MEMBERS = 20_000
MAX_RATIO = 100
JSON_FACTOR = 10  # bytes of Python objects per byte of JSON text, measured ~6-9 for skops schemas
MAX_CLASSES = 10_000
MAX_FEATURES = 1_000_000
MAX_TREE_NODES = 50_000_000
_NPY_HEADER_BYTES = 65_536


def memory_ceiling() -> int:
    """Bytes a model file may expand to while loading (``HEXEVAL_MODEL_MEMORY_MB``, default 1024 MiB)."""
    value = os.environ.get(MEMORY_ENV, "")
    try:
        mb = int(value) if value.strip() else DEFAULT_MEMORY_MB
    except ValueError:
        mb = DEFAULT_MEMORY_MB
    return max(mb, 16) * 1024 * 1024


def _mib(n: int) -> str:
    return f"{n / 1024 / 1024:,.0f} MiB" if n >= 1024 * 1024 else f"{n:,} bytes"


def _too_big(name: str, what: str, size: int) -> ModelError:
    return ModelError(f"'{name}' {what} about {_mib(size)} of memory while loading, more than the "
                      f"{_mib(memory_ceiling())} a model may take on this server, so it was not loaded. Use a smaller model (fewer or shallower "
                      f"trees), or ask the operator to raise the limit ({MEMORY_ENV}).")


# --------------------------------------------------------------------------------------------- skops


def check_skops_archive(path, data: bytes | None = None) -> None:
    """Refuse a skops archive whose load would exceed the bounds above (a file that is no zip is left alone).

    ``data``: the file's bytes, already read (then the file itself is not read again; ``path`` names it).

    Raises
    ------
    ModelError
        Naming the limit that was exceeded and the file's value.
    """
    path = Path(path)
    source = io.BytesIO(data) if data is not None else path
    if not zipfile.is_zipfile(source):
        return  # not an archive at all: the loader's own message says what it is
    name = path.name
    try:
        with zipfile.ZipFile(source) as archive:
            members = archive.infolist()
            if len(members) > MAX_MEMBERS:
                raise ModelError(f"'{name}' holds {len(members):,} parts, more than the {MAX_MEMBERS:,} a skops model "
                                 "may have here, so it was not loaded. Save a smaller model with skops.io.dump.")
            estimate = 0
            for info in members:
                _check_ratio(name, info)
                estimate += _member_cost(archive, info, name)
                if estimate > memory_ceiling():
                    raise _too_big(name, "would take", estimate)
    except zipfile.BadZipFile as err:
        raise ModelError(f"'{name}' is not a complete skops file: its zip directory is damaged. Save the model again "
                         "with skops.io.dump(model, 'model.skops').") from err


def _check_ratio(name: str, info: zipfile.ZipInfo) -> None:
    if info.file_size > 1024 * 1024 and info.file_size > MAX_RATIO * max(info.compress_size, 1):
        raise ModelError(f"'{name}' holds a part ({PurePosixPath(info.filename).name[:60]}) compressed "
                         f"{info.file_size // max(info.compress_size, 1):,} to one ({_mib(info.compress_size)} that "
                         f"expand to {_mib(info.file_size)}); more than {MAX_RATIO} to one is how a file is made to "
                         "take a server's memory, so it was not loaded. skops.io.dump saves models uncompressed.")


def _member_cost(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> int:
    """The memory loading ``info`` takes, from what it declares (an ``.npy`` header is checked against its size)."""
    member = info.filename
    if member == "schema.json":
        return JSON_FACTOR * info.file_size
    if member.endswith(".npy"):
        return _npy_cost(archive, info, name)
    if member.endswith((".bin", ".ubj", ".json")) and info.file_size:
        data = archive.read(info)  # the file_size is already bounded by the estimate so far
        check_xgboost_bytes(data, name)
        return 2 * len(data)
    return info.file_size


def _npy_cost(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> int:
    from numpy.lib import format as npy  # the .npy reader's own header parser (literal values only)

    with archive.open(info) as fh:
        head = fh.read(_NPY_HEADER_BYTES)
    stream = io.BytesIO(head)
    try:
        version = npy.read_magic(stream)
        reader = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
        shape, _, dtype = reader(stream)
    except (ValueError, OSError, SyntaxError, TypeError) as err:
        raise ModelError(f"'{name}' holds an array part ({PurePosixPath(info.filename).name[:60]}) whose header is "
                         "not a valid .npy header, so it was not loaded. Save the model again with skops.io.dump."
                         ) from err
    declared = math.prod(int(n) for n in shape) * dtype.itemsize
    held = info.file_size - stream.tell()
    if dtype.hasobject or declared != held:
        what = "objects" if dtype.hasobject else f"{declared:,} bytes ({'x'.join(map(str, shape))} of {dtype})"
        raise ModelError(f"'{name}' holds an array part ({PurePosixPath(info.filename).name[:60]}) that declares "
                         f"{what} but stores {held:,} bytes, so it was not loaded (numpy would reserve the declared "
                         "size first). Save the model again with skops.io.dump.")
    return 2 * declared  # read into a buffer, then into the array


# ------------------------------------------------------------------------------------------- XGBoost


def check_xgboost_file(path) -> None:
    """Refuse an XGBoost ``.json``/``.ubj`` model whose declared sizes disagree with its content or exceed the bounds.

    Raises
    ------
    ModelError
        Naming what is declared and the limit or the content it contradicts.
    """
    path = Path(path)
    size = path.stat().st_size
    if path.suffix.lower() == ".json" and JSON_FACTOR * size > memory_ceiling():
        raise _too_big(path.name, "is a JSON model that would take", JSON_FACTOR * size)
    check_xgboost_bytes(path.read_bytes(), path.name, text=path.suffix.lower() == ".json")


def check_xgboost_bytes(data: bytes, name: str, *, text: bool | None = None) -> None:
    """:func:`check_xgboost_file` for a model's bytes: JSON text (``text=True``), UBJSON (False) or either (None).

    Bytes that are not an XGBoost model are left alone: the XGBoost loader's own message says what they are.
    """
    if data.lstrip()[:1] != b"{":
        return
    model = None
    if text is not False:
        try:
            model = json.loads(data)
        except (ValueError, RecursionError):
            if text:
                return
    if model is None:
        model = _Ubj(data, name).read()
    if isinstance(model, dict) and isinstance(model.get("Model"), dict):  # a Booster's state, as skops keeps it
        model = model["Model"]
    _check_xgboost_model(model, name)


def _check_xgboost_model(model, name: str) -> None:
    learner = model.get("learner") if isinstance(model, dict) else None
    if not isinstance(learner, dict):
        return  # not XGBoost's layout: XGBoost refuses it itself
    params = learner.get("learner_model_param") if isinstance(learner.get("learner_model_param"), dict) else {}
    num_feature = _count(params.get("num_feature", 0), name, "num_feature", MAX_FEATURES)
    _count(params.get("num_class", 0), name, "num_class", MAX_CLASSES)
    num_target = _count(params.get("num_target", 1), name, "num_target", MAX_CLASSES)
    booster = learner.get("gradient_booster") if isinstance(learner.get("gradient_booster"), dict) else {}
    gbtree = booster.get("gbtree") if booster.get("name") == "dart" else booster
    tree_model = gbtree.get("model") if isinstance(gbtree, dict) else None
    if not isinstance(tree_model, dict):
        return  # gblinear: its weights are one array read as stored
    trees = tree_model.get("trees") if isinstance(tree_model.get("trees"), list) else []
    declared = (tree_model.get("gbtree_model_param") or {}).get("num_trees", len(trees))
    if _count(declared, name, "num_trees", 10 * MAX_FEATURES) != len(trees):
        raise ModelError(f"'{name}' declares {declared} trees but holds {len(trees)}, so it was not loaded (XGBoost "
                         "reserves the declared count first). Save the model again with model.save_model.")
    total = 0
    for n, tree in enumerate(trees):
        total += _check_tree(tree, n, name, num_feature, num_target)
        if total > MAX_TREE_NODES:
            raise ModelError(f"'{name}' holds more than {MAX_TREE_NODES:,} tree nodes, more than a model may have "
                             "here, so it was not loaded. Use fewer or shallower trees.")


_NODE_ARRAYS = ("left_children", "right_children", "parents", "split_indices", "split_conditions", "default_left",
                "sum_hessian", "loss_changes", "split_type")


def _check_tree(tree, n: int, name: str, num_feature: int, num_target: int) -> int:
    if not isinstance(tree, dict):
        raise ModelError(f"'{name}' holds a tree (number {n}) that is not one XGBoost writes, so it was not loaded.")
    param = tree.get("tree_param") if isinstance(tree.get("tree_param"), dict) else {}
    nodes = _count(param.get("num_nodes", 0), name, f"tree {n}'s num_nodes", MAX_TREE_NODES)
    leaf = _count(param.get("size_leaf_vector", 0) or 1, name, f"tree {n}'s size_leaf_vector", max(num_target, 1) + 1)
    for key in _NODE_ARRAYS:
        if key in tree and _length(tree[key]) != nodes:
            raise ModelError(f"'{name}': tree {n} declares {nodes:,} nodes but its {key} holds {_length(tree[key]):,}, "
                             "so it was not loaded (XGBoost reserves the declared size first). Save the model again "
                             "with model.save_model.")
    if "base_weights" in tree and _length(tree["base_weights"]) not in (nodes, nodes * leaf):
        raise ModelError(f"'{name}': tree {n} declares {nodes:,} nodes but holds {_length(tree['base_weights']):,} "
                         "weights, so it was not loaded. Save the model again with model.save_model.")
    splits = tree.get("split_indices")
    if num_feature and splits is not None and _length(splits) and int(np.max(np.asarray(splits))) >= num_feature:
        raise ModelError(f"'{name}': tree {n} splits on feature {int(np.max(np.asarray(splits)))}, but the model has "
                         f"{num_feature} features, so it was not loaded. Save the model again with model.save_model.")
    return nodes


def _count(value, name: str, what: str, limit: int) -> int:
    """A declared count (XGBoost writes them as strings) as an int within ``[0, limit]``."""
    try:
        number = int(float(value)) if not isinstance(value, (list, dict)) else -1
    except (TypeError, ValueError, OverflowError):
        number = -1
    if number < 0 or number > limit:
        raise ModelError(f"'{name}' declares {what} = {str(value)[:40]}, outside 0 to {limit:,}, so it was not loaded "
                         "(XGBoost would reserve memory for it first).")
    return number


def _length(value) -> int:
    return len(value) if isinstance(value, (list, np.ndarray, str, bytes)) else -1


class _Ubj:
    """A UBJSON reader (the subset XGBoost writes) that checks every declared length against the bytes left.

    Typed numeric arrays come back as read-only numpy arrays over the file's bytes (no copy), so reading
    costs about the file's size.
    """

    _FIXED = {b"i": ">i1", b"U": ">u1", b"I": ">i2", b"l": ">i4", b"L": ">i8", b"d": ">f4", b"D": ">f8"}

    def __init__(self, data: bytes, name: str):
        self.data, self.pos, self.name, self.depth = memoryview(data), 0, name, 0

    def read(self):
        value = self._value(self._marker())
        return value

    def _fail(self, what: str) -> ModelError:
        return ModelError(f"'{self.name}' is a UBJSON model whose {what} at byte {self.pos:,}, so it was not loaded. "
                          "Save the model again with model.save_model('model.ubj').")

    def _take(self, n: int) -> memoryview:
        if n < 0 or self.pos + n > len(self.data):
            raise self._fail(f"declared length ({n:,} bytes) runs past the end of the file")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def _marker(self) -> bytes:
        marker = bytes(self._take(1))
        while marker == b"N":
            marker = bytes(self._take(1))
        return marker

    def _int(self, marker: bytes) -> int:
        if marker not in (b"i", b"U", b"I", b"l", b"L"):
            raise self._fail("length is not an integer")
        fmt = self._FIXED[marker]
        return int(np.frombuffer(self._take(int(fmt[-1])), dtype=fmt)[0])

    def _value(self, marker: bytes):
        if marker in self._FIXED:
            fmt = self._FIXED[marker]
            value = np.frombuffer(self._take(int(fmt[-1])), dtype=fmt)[0]
            return float(value) if marker in (b"d", b"D") else int(value)
        if marker in (b"Z", b"T", b"F"):
            return {b"Z": None, b"T": True, b"F": False}[marker]
        if marker == b"C":
            return bytes(self._take(1)).decode("latin-1")
        if marker in (b"S", b"H"):
            return bytes(self._take(self._int(self._marker()))).decode("utf-8", "replace")
        if marker in (b"[", b"{"):
            self.depth += 1
            if self.depth > 64:
                raise self._fail("nesting is deeper than 64 levels")
            value = self._container(marker == b"{")
            self.depth -= 1
            return value
        raise self._fail(f"type marker {marker!r} is unknown")

    def _container(self, is_object: bool):
        element_type, count = None, None
        if bytes(self.data[self.pos:self.pos + 1]) == b"$":
            self.pos += 1
            element_type = bytes(self._take(1))
        if bytes(self.data[self.pos:self.pos + 1]) == b"#":
            self.pos += 1
            count = self._int(self._marker())
        if element_type is not None and count is None:
            raise self._fail("typed container has no count")
        if count is not None:
            size = int(self._FIXED[element_type][-1]) if element_type in self._FIXED else 1
            if count < 0 or count * size > len(self.data) - self.pos:
                raise self._fail(f"declared count ({count:,} elements) does not fit in the bytes left")
            if not is_object and element_type in self._FIXED:
                return np.frombuffer(self._take(count * size), dtype=self._FIXED[element_type])
        items: dict | list = {} if is_object else []
        n = 0
        while count is None or n < count:
            if count is None and bytes(self.data[self.pos:self.pos + 1]) in (b"]", b"}"):
                self.pos += 1
                break
            if is_object:
                key = bytes(self._take(self._int(self._marker()))).decode("utf-8", "replace")
            item = self._value(element_type if element_type is not None else self._marker())
            if is_object:
                items[key] = item
            else:
                items.append(item)
            n += 1
        return items


# ---------------------------------------------------------------------------------------------- ONNX


_ONNX_ITEM_BYTES = {1: 4, 2: 1, 3: 1, 4: 2, 5: 2, 6: 4, 7: 8, 9: 1, 10: 2, 11: 8, 12: 4, 13: 8, 14: 8, 15: 16, 16: 2}


def check_onnx_sizes(proto, name: str, tensors) -> None:
    """Refuse an ONNX model whose stored tensors declare more than they hold, or that computes too big a constant.

    Parameters
    ----------
    proto : onnx.ModelProto
        The parsed model.
    name : str
        The file name, for messages.
    tensors : iterable of onnx.TensorProto
        Every tensor stored in the model (initializers, attribute tensors, in subgraphs too).
    """
    total = 0
    for tensor in tensors:
        elements = math.prod(int(d) for d in tensor.dims)
        item = _ONNX_ITEM_BYTES.get(int(tensor.data_type), 1)
        if any(int(d) < 0 for d in tensor.dims):
            raise ModelError(f"'{name}' stores a tensor ({tensor.name[:60] or 'unnamed'}) with a negative dimension, "
                             "so it was not loaded. Export the model again.")
        held = _onnx_held(tensor, item)
        if held is not None and held != elements * item:
            raise ModelError(f"'{name}' stores a tensor ({tensor.name[:60] or 'unnamed'}) that declares "
                             f"{elements * item:,} bytes ({'x'.join(str(int(d)) for d in tensor.dims) or 'scalar'}) "
                             f"but holds {held:,}, so it was not loaded. Export the model again.")
        total += elements * item
        if total > memory_ceiling():
            raise _too_big(name, "stores tensors that would take", total)
    _check_inferred(proto, name)


def _onnx_held(tensor, item: int) -> int | None:
    """Bytes of data a tensor holds (None when it holds none inline: strings, or external data refused elsewhere)."""
    if tensor.raw_data:
        return len(tensor.raw_data)
    for field in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        values = getattr(tensor, field)
        if len(values):
            per = 2 if int(tensor.data_type) in (14, 15) else 1  # complex numbers: two values per element
            return len(values) // per * item if field != "int32_data" or item >= 4 else len(values) * item
    if len(tensor.string_data):
        return None
    return 0


def _check_inferred(proto, name: str) -> None:
    """Shapes ONNX infers with constants propagated: any static intermediate over the ceiling is refused."""
    import onnx  # only for ONNX files

    try:
        inferred = onnx.shape_inference.infer_shapes(proto, data_prop=True)
    except Exception as err:  # onnx raises many types; onnxruntime may still run such a graph
        log.info("ONNX shape inference failed on %s (%s: %s); its computed sizes stay unchecked.", name,
                 type(err).__name__, err)
        return
    ceiling = memory_ceiling()
    for value in list(inferred.graph.value_info) + list(inferred.graph.output):
        tensor_type = value.type.tensor_type
        if not tensor_type.HasField("shape"):
            continue
        dims = [d.dim_value if d.HasField("dim_value") else 1 for d in tensor_type.shape.dim]
        size = math.prod(max(int(d), 0) for d in dims) * _ONNX_ITEM_BYTES.get(int(tensor_type.elem_type), 1)
        if size > ceiling:
            raise _too_big(name, f"computes a tensor ({value.name[:60]}, {'x'.join(map(str, dims))}) from its "
                                 "constants that would take", size)

