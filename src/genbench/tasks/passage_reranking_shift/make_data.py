"""Write the data of ``passage_reranking_shift`` (hand-written queries and passages; run from this directory).

Train queries are about gardening and cooking; test queries about astronomy and programming (a domain shift).
Each row: ``query``, ``positive`` (relevant passages) and ``documents`` (a first-stage ranking, best first, written
to look like a lexical retriever's: word overlap first, so relevant passages are often not on top).
"""

import json
from pathlib import Path

TRAIN = [
    {
        "query": "how often should tomato plants be watered",
        "positive": ["Tomato plants need deep watering two or three times a week, more often in hot weather."],
        "documents": [
            "Tomato sauce is made by simmering tomatoes with garlic and olive oil.",
            "Plants in pots dry out faster than plants in the ground.",
            "Tomato plants need deep watering two or three times a week, more often in hot weather.",
            "Watering cans come in plastic and metal versions.",
        ],
    },
    {
        "query": "what soil do roses grow best in",
        "positive": ["Roses grow best in loamy, well-drained soil rich in organic matter with a slightly acidic pH."],
        "documents": [
            "A rose by any other name would smell as sweet.",
            "Roses grow best in loamy, well-drained soil rich in organic matter with a slightly acidic pH.",
            "Soil erosion is caused by wind and water.",
            "Clay soil holds water and can suffocate roots.",
        ],
    },
    {
        "query": "how long to boil an egg for a soft yolk",
        "positive": ["For a soft, runny yolk, boil the egg for about six minutes, then cool it in cold water."],
        "documents": [
            "Eggs are a good source of protein.",
            "Boil water before adding pasta.",
            "For a soft, runny yolk, boil the egg for about six minutes, then cool it in cold water.",
            "A hard-boiled egg keeps for a week in the fridge.",
        ],
    },
]

TEST = [
    {
        "query": "why does the moon have phases",
        "positive": [
            "The moon shows phases because we see different parts of its sunlit half as it orbits the Earth.",
            "As the moon moves around the Earth, the angle between sun, Earth and moon changes how much of the "
            "lit side faces us.",
        ],
        "documents": [
            "The moon is the fifth largest moon in the solar system.",
            "Phases of a project include planning, execution and review.",
            "The moon shows phases because we see different parts of its sunlit half as it orbits the Earth.",
            "Why the moon looks bigger near the horizon is still debated.",
            "As the moon moves around the Earth, the angle between sun, Earth and moon changes how much of the "
            "lit side faces us.",
        ],
    },
    {
        "query": "what is a black hole",
        "positive": ["A black hole is a region of space where gravity is so strong that not even light can escape."],
        "documents": [
            "A black cat crossed the road at night.",
            "The hole in the ozone layer is slowly recovering.",
            "Black holes were first predicted by general relativity.",
            "A black hole is a region of space where gravity is so strong that not even light can escape.",
            "Space telescopes observe in infrared light.",
        ],
    },
    {
        "query": "how do I fix an off by one error in a loop",
        "positive": [
            "Off-by-one errors in loops usually come from using <= instead of <; check the first and last index "
            "the loop visits.",
        ],
        "documents": [
            "A loop repeats a block of code while a condition holds.",
            "Error messages should say what went wrong and how to fix it.",
            "Off-by-one errors in loops usually come from using <= instead of <; check the first and last index "
            "the loop visits.",
            "One way to write a loop is with a for statement.",
        ],
    },
    {
        "query": "what does a unit test check",
        "positive": ["A unit test checks that one small piece of code, such as a function, behaves as expected."],
        "documents": [
            "A unit test checks that one small piece of code, such as a function, behaves as expected.",
            "The metre is the SI unit of length.",
            "Driving tests check that you can drive safely.",
            "Integration tests run several components together.",
        ],
    },
]


def write(path: Path, rows: list[dict]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


if __name__ == "__main__":
    data = Path(__file__).resolve().parent / "data"
    data.mkdir(exist_ok=True)
    write(data / "train.jsonl", TRAIN)
    write(data / "test.jsonl", TEST)
