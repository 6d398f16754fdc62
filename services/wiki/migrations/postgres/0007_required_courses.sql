-- Required training (issue 24): the courses a model requires for clearance to
-- operate it, by education's course id (another service's: no foreign key).
CREATE TABLE model_required_courses (
    environment_model_id BIGINT NOT NULL REFERENCES environment_models (id),
    course_id BIGINT NOT NULL,
    PRIMARY KEY (environment_model_id, course_id)
);
