"""Settings of a quick whole run (6 cases, small samples) shared by the bundled-task and model-file tests."""

QUICK = {"evaluation": {"sample_size": 6, "bootstrap_resamples": 100,
                        "explainers": {"shap": {"background_size": 30},
                                       "lime": {"num_samples": 200, "stability_subset": 2},
                                       "anchor": {"max_instances": 6}, "dice": {"max_instances": 6}},
                        "stability": {"repeats": 2}, "sanity": {"randomisation_cases": 3}},
         "personas": {"sample_instances": 2}}
