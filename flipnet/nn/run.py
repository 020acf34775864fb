"""One entry for every recipe: a network is trained (`train`), the lookup baseline is
built from the training labels (`lookup`), convmem2d's network is trained on that
table's shapes (`shapetrain`)."""


def run(config, resume=False, overwrite=False):
    """The results of the recipe's run (see `train.train` and `lookup.run`)."""
    if config.model == "lookup2d":
        from flipnet.nn.lookup import run as build_lookup

        return build_lookup(config)
    if config.model == "convmem2d":
        from flipnet.nn.shapetrain import train_shapes

        return train_shapes(config, resume=resume, overwrite=overwrite)
    from flipnet.nn.train import train

    return train(config, resume=resume, overwrite=overwrite)
