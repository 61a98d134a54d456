"""Types of the extension module; the documented API is the ``tinyaot`` package's."""

from typing import List, Optional, Tuple, Union

__version__: str

class Error(ValueError): ...

def generate_c(
    model: Union[bytes, str],
    prefix: str,
    layout: str = "cmake",
    overlap: bool = True,
    reorder: bool = True,
    regions: List[Tuple[str, int, str]] = ...,
    limits: List[Tuple[str, int]] = ...,
) -> List[Tuple[str, str]]: ...
def generate_rust(
    model: Union[bytes, str],
    name: Optional[str] = None,
    overlap: bool = True,
    reorder: bool = True,
    regions: List[Tuple[str, int, str]] = ...,
    limits: List[Tuple[str, int]] = ...,
) -> str: ...
def plan(
    model: Union[bytes, str],
    overlap: bool = True,
    reorder: bool = True,
    regions: List[Tuple[str, int, str]] = ...,
    limits: List[Tuple[str, int]] = ...,
) -> Tuple[str, str]: ...
def run(args: List[str]) -> int: ...
def install_signal_handlers() -> None: ...
