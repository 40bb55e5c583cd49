"""``genbench.data._arrow_values``: the arrays ``pa.array`` gives, without pyarrow importing pandas."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest

from genbench.data._arrow_values import integer_array, integers_to_numpy, string_array, string_scalar


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_integer_array_is_what_pa_array_gives(dtype):
    values = np.array([5, 0, 3, 7], dtype=np.int64)
    expected = pa.array(values.astype(dtype))
    assert integer_array(values, dtype).equals(expected)
    assert integer_array(values[::2], dtype).equals(pa.array(values[::2].astype(dtype)))  # a strided view
    assert integer_array([], dtype).equals(pa.array([], expected.type))


def test_integer_array_refuses_other_shapes():
    with pytest.raises(ValueError, match="one-dimensional"):
        integer_array(np.zeros((2, 2)))


def test_integers_to_numpy_honours_slices_and_chunks():
    array = pa.array([1, 2, 3, 4, 5], pa.int16())
    assert integers_to_numpy(array[1:4]).tolist() == [2, 3, 4]
    assert integers_to_numpy(array[1:4]).dtype == np.int16
    chunked = pa.chunked_array([pa.array([9, 8], pa.uint32()), pa.array([7], pa.uint32())])
    assert integers_to_numpy(chunked).tolist() == [9, 8, 7] and integers_to_numpy(chunked).dtype == np.uint32
    assert integers_to_numpy(pa.chunked_array([], pa.int64())).tolist() == []
    assert integers_to_numpy(array[5:]).tolist() == []


def test_integers_to_numpy_refuses_nulls_and_other_types():
    with pytest.raises(ValueError, match="nulls"):
        integers_to_numpy(pa.array([1, None]))
    with pytest.raises(TypeError, match="integer"):
        integers_to_numpy(pa.array([1.5]))


def test_strings():
    values = ["Q: ", "", "naïve ✓", "\n\n"]
    assert string_array(values).equals(pa.array(values, pa.string()))
    assert string_array([]).equals(pa.array([], pa.string()))
    assert string_scalar("é\n") == pa.scalar("é\n")


def test_no_pandas_is_imported():
    code = (
        "import sys\n"
        "import numpy as np\n"
        "import pyarrow.compute as pc\n"
        "from genbench.data._arrow_values import integer_array, integers_to_numpy, string_array, string_scalar\n"
        "words = string_array(['a', 'b'])\n"
        "joined = pc.binary_join_element_wise(string_scalar('<'), words, string_scalar(''))\n"
        "assert joined.take(integer_array(np.array([1, 0]))).to_pylist() == ['<b', '<a']\n"
        "assert integers_to_numpy(integer_array([3])).tolist() == [3]\n"
        "print('pandas' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "False"
