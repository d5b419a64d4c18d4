"""services/kept.Kept: a bounded map that drops the least recently used entry past its size."""
import threading

from services.kept import Kept


def test_past_its_size_the_least_recently_used_entry_goes():
    kept = Kept(3)
    kept.put_many({"a": 1, "b": 2, "c": 3})
    assert kept.get("a") == 1  # now the most recently used
    kept.put("d", 4)
    assert len(kept) == 3 and kept.get("b") is None
    assert kept.get_many(["a", "c", "d", "b"]) == {"a": 1, "c": 3, "d": 4}


def test_a_lookup_of_many_marks_each_found_as_used_and_a_put_replaces():
    kept = Kept(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get_many(["a", "x"]) == {"a": 1}
    kept.put("a", 10)  # replaced, and used
    kept.put("c", 3)
    assert kept.get("b") is None and kept.get("a") == 10 and kept.get("c") == 3
    kept.clear()
    assert len(kept) == 0


def test_threads_sharing_it_keep_it_within_its_bound():
    kept = Kept(50)

    def work(n):
        for i in range(2000):
            kept.put((n, i % 80), i)
            kept.get_many([(n, (i + 1) % 80), (n + 1, i % 80)])

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(kept) == 50
