"""Tests of the statistics helpers: python3 -m unittest discover scripts/bench"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from scripts.bench import stats  # noqa: E402


class Median(unittest.TestCase):
    def test_odd_and_even(self):
        self.assertEqual(stats.summary([3, 1, 2])["median"], 2)
        s = stats.summary([4, 1, 3, 2])
        self.assertEqual((s["median"], s["min"], s["max"]), (2.5, 1, 4))


class MedianInterval(unittest.TestCase):
    def test_few_values_give_the_range(self):
        self.assertEqual(stats.median_interval([5, 1, 4, 2, 3]), (1, 5))

    def test_known_order_statistics(self):
        # The 95 % interval of the median is [x(1), x(6)] for n = 6 (coverage
        # 0.969), [x(2), x(9)] for n = 10 (0.979), [x(40), x(61)] for n = 100.
        self.assertEqual(stats.median_interval(range(1, 7)), (1, 6))
        self.assertEqual(stats.median_interval(list(range(10, 0, -1))), (2, 9))
        self.assertEqual(stats.median_interval(range(1, 101)), (40, 61))

    def test_interval_holds_the_median(self):
        values = [0.93, 1.02, 0.97, 1.10, 0.99, 0.95, 1.01, 0.98, 1.04, 0.96, 1.00]
        low, high = stats.median_interval(values)
        self.assertLessEqual(low, stats.summary(values)["median"])
        self.assertGreaterEqual(high, stats.summary(values)["median"])


class Paired(unittest.TestCase):
    def test_ratios_and_differences(self):
        self.assertEqual(stats.paired([2, 9], [1, 3]), [2, 3])
        self.assertEqual(stats.paired([2, 9], [1, 3], diff=True), [1, 6])
        with self.assertRaises(ValueError):
            stats.paired([1, 2], [1])

    def test_compare(self):
        a = [10, 12, 11, 30, 9, 10]
        b = [10, 10, 10, 10, 10, 10]
        c = stats.compare(a, b, quiet=[True, True, False, False, True, True])
        self.assertAlmostEqual(c["of_medians"], 1.05)
        self.assertAlmostEqual(c["paired"]["median"], 1.05)
        self.assertEqual(c["paired"]["interval"], (0.9, 3.0))
        self.assertEqual(c["quiet"]["values"], [1.0, 1.2, 0.9, 1.0])
        self.assertEqual(stats.compare([3], [1], diff=True)["of_medians"], 2)


if __name__ == "__main__":
    unittest.main()
