"""Cited case names that read as cases (legal.case_names): every row is a name the AILA index's ``cited_judgments``
holds, the junk ones as the extractor cut them out of a sentence."""

from __future__ import annotations

import pytest

from legal.case_names import plausible_case_name


@pytest.mark.parametrize("name", [
    "Sharad Birdhichand Sarda v. State of Maharashtra",
    "State of Karnataka v. Umadevi",
    "Masalti v. State of U.P",
    "Dalip Singh v. The State of Punjab",
    "Dr. Pradeep Jain v. Union of India",
    "A. V. D'Costa v. B. C. Patel",  # V. is an initial, not a second "v."
    "Union of India v. K. V. Jankiraman",
    "Sir Chunilal V. Mehta & Sons Ltd v. Century Spg. and Mfg. Co. Ltd",
    "Mineral Exploration Corpn. Employees' Union v. Mineral Exploration Corpn. Ltd",
    "Education Department Ministerial and General Subordinate Services Association v. State of Tamil Nadu",
    "Seaford Court Estates Ltd v. Asher",
    "R v. London County Council",
    "Smt. Nagawwa v. Veeranna Shivalingappa Konjalgi",
    "Ch.. Ramalinga Reddy v. Superintending Engineer",
    "Hemani Malhotra v. High Court of Delhi",
    "Supreme Court Bar Association v. Union of India",
])
def test_good_names(name: str) -> None:
    assert plausible_case_name(name)


@pytest.mark.parametrize("name", [
    "Judges. In Protima Dutta v. The State",
    "C.P.C.. In Deity Pattabhiramaswamy v. S. Hanymayya",
    "Cr.P.C. In Biswanath Ghosh v. State of West Bengal",
    "Plz. See Madan Gopal Kakad v. Naval Dubey",
    "Act In Bombay Improvement Trust v. Marwanji Manekji Mistry",
    "Act. See Ram Avtar Sharma v. State of Haryana",
    "Fifth and Fourteenth Amendments. In BMW of North America Inc v. Gore",
    "State. In R v. London County Council",
    "Barkya Thakur v. State of Bombay. It",
    "Jindal Stainless Ltd v. State of Haryana & Ors.. When",
    "Workmen of Lakheri Cement Works Ltd v. Associated Cement Companies Ltd. This Court",
    "Secundrabad v. A. V. R. Siddhahi and Ors In Gopalaiah's",
    "of The State of Madras v. Champakam Dorairajan",
    "Sharad Birdhichand Sarda v. State of Maharashtra1984 Indlaw SC",
    "Ravinder Singh Sahi v. State of J & K & Ors and Shiv Gandotra Vs. State",
    "2006 Indlaw SC 125",  # no parties at all
    "Umadevi v. ",
])
def test_junk(name: str) -> None:
    assert not plausible_case_name(name)
