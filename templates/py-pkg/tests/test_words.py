import unittest

from {{module}}.words import word_counts, words


class WordsTest(unittest.TestCase):
    def test_splits_on_anything_but_letters_and_digits(self) -> None:
        self.assertEqual(words("Hello, world! Hello 2 you."), ["hello", "world", "hello", "2", "you"])

    def test_no_words_in_an_empty_text(self) -> None:
        self.assertEqual(words("  ... "), [])


class WordCountsTest(unittest.TestCase):
    def test_most_frequent_first(self) -> None:
        self.assertEqual(word_counts("b a b c b a"), [("b", 3), ("a", 2), ("c", 1)])


if __name__ == "__main__":
    unittest.main()
