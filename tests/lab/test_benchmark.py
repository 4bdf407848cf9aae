from lab.bench.searches import percentile


def testpercentiles_interpolate_between_ranks() -> None:
    values = [10.0, 20.0, 30.0, 40.0]
    assert percentile(values, 0.5) == 25.0
    assert percentile(values, 0.95) == 38.5
    assert percentile([7.0], 0.95) == 7.0
