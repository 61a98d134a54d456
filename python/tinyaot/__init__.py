"""Compile TensorFlow Lite models ahead of time into static C or Rust inference code.

tinyaot reads a ``.tflite`` model, plans its activation memory offline and generates self-contained
C99 or Rust: a static arena, constant weights and parameters, and a straight-line sequence of
kernel calls, bit-exact with TensorFlow Lite Micro. This package is the compiler itself (written
in Rust), with no Python dependencies::

    import tensorflow as tf, tinyaot
    model = tf.lite.TFLiteConverter.from_keras_model(keras_model).convert()
    files = tinyaot.generate_c(model, prefix="net")   # {"net.h": "...", "net.c": "...", ...}
    print(tinyaot.plan(model)["arena_bytes"])

Every function takes the model as ``bytes`` (a converter's output, or a file read whole) or as
the path of a ``.tflite`` file (``str`` or ``os.PathLike``). A model tinyaot does not compile, or a
file that cannot be read, raises :class:`Error` with the message the ``tinyaot`` command prints
after ``error:``. The ``tinyaot`` command itself is installed with the package.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import Error

__all__ = ["Error", "Model", "Plan", "generate_c", "generate_rust", "plan", "run", "__version__"]

__version__: str = _native.__version__

#: A model: its bytes (``bytes``, ``bytearray`` or ``memoryview``), or the path of a ``.tflite``
#: file.
Model = Union[bytes, bytearray, memoryview, str, "os.PathLike[str]"]


def _native_model(model: Model) -> Union[bytes, str]:
    """The model as the extension module takes it: ``bytes``, or a path as ``str``."""
    if isinstance(model, bytes):
        return model
    if isinstance(model, (bytearray, memoryview)):
        # Copied: the compiler reads the model with the GIL released, and a mutable buffer could
        # change under it.
        return bytes(model)
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        return os.fsdecode(path) if isinstance(path, bytes) else path
    raise TypeError(
        "model must be bytes (the .tflite contents) or a path (str or os.PathLike), not "
        + type(model).__name__
    )


def generate_c(
    model: Model,
    prefix: str = "net",
    layout: str = "cmake",
    overlap: bool = True,
    reorder: bool = True,
    regions: Sequence[Tuple[str, int, str]] = (),
    *,
    max_operators: Optional[int] = None,
    max_tensors: Optional[int] = None,
    max_tensor_bytes: Optional[int] = None,
    max_constant_bytes: Optional[int] = None,
    max_arena_bytes: Optional[int] = None,
    target_pointer_width: Optional[int] = None,
) -> Dict[str, str]:
    """Generate the self-contained C99 sources of ``model``, what ``tinyaot c`` writes.

    Returns a dict from file name to contents, in this order: ``<prefix>.h`` (the API:
    ``<prefix>_invoke``, ``<prefix>_input``, ``<prefix>_output``, the sizes and quantization as
    macros), ``<prefix>.c``, ``<prefix>_kernels.h``, then one ``.c`` file per kernel family the
    model uses, then the build files of ``layout`` (names are relative paths: the Arduino layout
    puts the sources under ``src/``). Write them to a directory and ``cc -std=c99 DIR/*.c
    main.c`` builds: no malloc, stdio or libm.

    :param model: the model's bytes, or the path of a ``.tflite`` file.
    :param prefix: the C prefix of every file and name (``net`` gives ``net.h``, ``net_invoke``,
        ``NET_ARENA_BYTES``).
    :param layout: the build system's files written beside the sources, as ``tinyaot c
        --layout``: ``"cmake"`` (``CMakeLists.txt`` and ``<prefix>.tinyaot.cmake``: a static
        library for ``add_subdirectory``), ``"arduino"``, ``"zephyr"`` or ``"esp-idf"``.
    :param overlap: plan with overlaps (the default): an operator's output may take bytes of an
        input it is the last to read, where its kernel's access order allows, so the arena goes
        below the liveness bound. ``False`` is ``tinyaot c --no-overlap``: every tensor keeps its
        bytes until its last reader has finished (the bound-only plan).
    :param reorder: where the graph has parallel branches and another operator order keeps fewer
        bytes alive at once, run the operators in that order (the default; same outputs, and
        comments and hooks keep the file's operator indices). ``False`` is ``tinyaot c
        --keep-order``: the file's order.
    :param regions: memory regions besides the arena, fastest first, as ``(name, bytes,
        section)`` (``[("dtcm", 65536, ".dtcm")]`` is ``tinyaot c --region dtcm=64K@.dtcm``): the
        activations with the most accesses per byte move there, into one static per region in
        that linker section.
    :param max_operators: the resource limits (keyword only), as ``tinyaot c --max-operators``
        and its siblings: most operators (default 100,000) and tensors (1,000,000) a model may
        have, largest tensor and total of constants in bytes (256 MiB each), largest arena and
        state region (64 MiB), and the target's pointer width in bits (16, 32 or 64; default 32).
        A model over a limit is refused naming it; ``None`` keeps the default.
    :raises Error: the model is refused (unsupported operator, invalid file, over a limit, ...),
        the prefix is not a C identifier, the layout is unknown, or the file cannot be read.
    :raises ValueError: a limit is out of range (a pointer width other than 16, 32 or 64).
    """
    limits = _limits(
        max_operators,
        max_tensors,
        max_tensor_bytes,
        max_constant_bytes,
        max_arena_bytes,
        target_pointer_width,
    )
    return dict(
        _native.generate_c(
            _native_model(model), prefix, layout, overlap, reorder, list(regions), limits
        )
    )


def generate_rust(
    model: Model,
    name: Optional[str] = None,
    overlap: bool = True,
    reorder: bool = True,
    regions: Sequence[Tuple[str, int, str]] = (),
    *,
    max_operators: Optional[int] = None,
    max_tensors: Optional[int] = None,
    max_tensor_bytes: Optional[int] = None,
    max_constant_bytes: Optional[int] = None,
    max_arena_bytes: Optional[int] = None,
    target_pointer_width: Optional[int] = None,
) -> str:
    """Generate the Rust module of ``model``, what ``tinyaot rust`` writes.

    The module defines ``pub struct <name>`` with ``const fn new()``, ``invoke()``, typed
    accessors for the inputs and outputs, and an implementation of ``tinyaot::Model``; it needs the
    ``tinyaot`` runtime crate.

    :param model: the model's bytes, or the path of a ``.tflite`` file.
    :param name: the struct's name. By default, the file stem in CamelCase for a path
        (``person_detect.tflite`` gives ``PersonDetect``), and ``Net`` for bytes.
    :param overlap: as for :func:`generate_c` (``False`` is ``tinyaot rust --no-overlap``).
    :param reorder: as for :func:`generate_c` (``False`` is ``tinyaot rust --keep-order``).
    :param regions: as for :func:`generate_c`.
    :param max_operators: and the other limits: as for :func:`generate_c`.
    :raises Error: the model is refused, the name is not a Rust identifier, or the file cannot be
        read.
    """
    limits = _limits(
        max_operators,
        max_tensors,
        max_tensor_bytes,
        max_constant_bytes,
        max_arena_bytes,
        target_pointer_width,
    )
    return _native.generate_rust(
        _native_model(model), name, overlap, reorder, list(regions), limits
    )


class Plan(Dict[str, Any]):
    """A memory plan: the dict of ``tinyaot plan --format json``, which draws itself.

    In a notebook, a cell ending in ``tinyaot.plan(model)`` shows the plan as the picture ``tinyaot
    plan --svg`` writes (operator step across, arena offset down, a box per tensor): Jupyter calls
    :meth:`_repr_svg_`. :attr:`svg` is the same drawing as text, to save as a file.
    """

    #: The plan drawn as SVG, titled with the model's file name (``net.tflite`` for bytes).
    svg: str

    def __init__(self, plan: Dict[str, Any], svg: str) -> None:
        super().__init__(plan)
        self.svg = svg

    def _repr_svg_(self) -> str:
        return self.svg


def plan(
    model: Model,
    overlap: bool = True,
    reorder: bool = True,
    regions: Sequence[Tuple[str, int, str]] = (),
    *,
    max_operators: Optional[int] = None,
    max_tensors: Optional[int] = None,
    max_tensor_bytes: Optional[int] = None,
    max_constant_bytes: Optional[int] = None,
    max_arena_bytes: Optional[int] = None,
    target_pointer_width: Optional[int] = None,
) -> Plan:
    """The memory plan of ``model``: the JSON of ``tinyaot plan --format json``, decoded, as a
    :class:`Plan` (a dict that a notebook shows as the plan's drawing).

    Its keys include ``arena_bytes`` (the activation arena the generated code declares),
    ``lower_bound_bytes`` (the liveness lower bound), ``state_bytes`` (variable tensors),
    ``num_ops``, ``tensors`` (each planned tensor's offset, size, region and first and last
    operator), ``aliases`` and ``overlaps`` (outputs sharing bytes with an input they are the last
    to read; with some, ``arena_bytes`` is below ``lower_bound_bytes``). A model that loads but
    does not compile is still planned, without kernel scratch memory.

    :param model: the model's bytes, or the path of a ``.tflite`` file.
    :param overlap: as for :func:`generate_c` (``False`` is ``tinyaot plan --no-overlap``).
    :param reorder: as for :func:`generate_c` (``False`` is ``tinyaot plan --keep-order``).
    :param regions: as for :func:`generate_c`; the plan then lists ``regions`` and each moved
        tensor's ``region`` is its region's name.
    :param max_operators: and the other limits: as for :func:`generate_c`.
    :raises Error: the model cannot be loaded or planned, or the file cannot be read.
    """
    limits = _limits(
        max_operators,
        max_tensors,
        max_tensor_bytes,
        max_constant_bytes,
        max_arena_bytes,
        target_pointer_width,
    )
    json_text, svg = _native.plan(_native_model(model), overlap, reorder, list(regions), limits)
    return Plan(json.loads(json_text), svg)


def _limits(
    max_operators: Optional[int],
    max_tensors: Optional[int],
    max_tensor_bytes: Optional[int],
    max_constant_bytes: Optional[int],
    max_arena_bytes: Optional[int],
    target_pointer_width: Optional[int],
) -> List[Tuple[str, int]]:
    """The limits given, as ``(name, value)`` pairs for the extension module (the others keep
    their defaults there)."""
    given = {
        "max_operators": max_operators,
        "max_tensors": max_tensors,
        "max_tensor_bytes": max_tensor_bytes,
        "max_constant_bytes": max_constant_bytes,
        "max_arena_bytes": max_arena_bytes,
        "target_pointer_width": target_pointer_width,
    }
    pairs = []
    for name, value in given.items():
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"`{name}` must be a non-negative int, not {value!r}")
        pairs.append((name, value))
    return pairs


def run(args: Sequence[str]) -> int:
    """Run the ``tinyaot`` command line on ``args`` in this process; return its exit status.

    ``run(["c", "net.tflite", "-o", "out"])`` is ``tinyaot c net.tflite -o out``: 0 on success,
    1 when the model is refused or a file cannot be written, 2 on a usage error. It writes to the
    process's standard output and error (file descriptors 1 and 2), which a notebook shows in its
    server's log rather than in the cell: there, prefer the functions above.
    """
    return int(_native.run([str(arg) for arg in args]))
